// TEST-ONLY ADVERSARY (marker: forgeOod). A cheating prover built from the production prover's
// steps: it proves with a key that does not satisfy the AIR, commits the interpolant of the
// (non-polynomial) composition quotient over its whole evaluation domain, forges the last out-of-domain segment
// value so the verifier's OOD relation holds, and runs FRI honestly on the resulting high-degree
// DEEP polynomial. A sound verifier must reject this in FRI. It lives under test/ so that no
// production bundle contains it (test/unit/stark/bundle.test.ts checks).
import { type Fp3, eAdd, eMul, ePow, eSub, eInv } from '../../../lib/stark/ext.ts';
import { randomFelt } from '../../../lib/stark/field.ts';
import { compositionAtZ, type Statement } from '../../../lib/stark/air.ts';
import type { StarkParams } from '../../../lib/stark/params.ts';
import { traceStep, compositionStep, oodStep, finishProof } from '../../../lib/stark/prover.ts';

export function forgeOod(wrongKey: readonly bigint[], stmt: Statement, params: StarkParams): Uint8Array {
  const ts = traceStep(wrongKey, stmt, params, randomFelt);
  const { n, segments: k, segmentStride: d } = ts.shape;
  const cs = compositionStep(ts, ts.hc[0].length);
  const frame = oodStep(ts, cs);
  const { z, tz, tgz, hz } = frame;
  // Make sum_j z^(jd) hz_j equal the value the verifier derives from the trace frame.
  const target = compositionAtZ(n, z, tz, tgz, ts.alphas, ts.betas, ts.boundary);
  let acc: Fp3 = [0n, 0n, 0n];
  for (let j = 0; j < k - 1; j++) acc = eAdd(acc, eMul(ePow(z, BigInt(j * d)), hz[j]));
  hz[k - 1] = eMul(eSub(target, acc), eInv(ePow(z, BigInt((k - 1) * d))));
  return finishProof(ts, cs, frame);
}
