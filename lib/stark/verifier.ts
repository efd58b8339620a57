// STARK verifier for the session AIR. Parses strictly while replaying the transcript; any
// deviation (format, Merkle path, OOD relation, grinding, FRI) rejects.
import { P as MODULUS, rootOfUnity, pow } from './field.ts';
import { type Fp3, eAdd, eMul, ePow, eEq, eSub, eFrom, eBatchInv } from './ext.ts';
import { verifyMany, multiProofLength } from './merkle.ts';
import { friReplay, friVerify, layerLeafIndices, friFolds } from './fri.ts';
import { deriveShape, type StarkParams } from './params.ts';
import { boundaryConstraints, compositionAtZ, statementFromFelts, PUBLIC_INPUT_COUNT } from './air.ts';
import { WIDTH } from './rpo.ts';
import {
  newTranscript,
  drawCompositionCoeffs,
  drawOodPoint,
  absorbOod,
  drawDeepCoeffs,
  powOk,
  queryPositions,
  friConfig,
  deepAt,
  deepConstants,
} from './protocol.ts';
import { ByteReader, readHeader, readBody, leafBytes, type ProofHeader, type ProofBody } from './serialize.ts';

// A module-local copy: hot loops read it as a plain constant, not through an import binding.
const P = MODULUS;

export type VerifyResult = { ok: true; header: ProofHeader; body: ProofBody; positions: number[] } | { ok: false; reason: string };

export function verifyStatement(proof: Uint8Array, publicFelts: readonly bigint[], params: StarkParams): VerifyResult {
  try {
    return verifyInner(proof, publicFelts, params);
  } catch (e) {
    return { ok: false, reason: e instanceof Error ? e.message : 'error' };
  }
}

function verifyInner(proof: Uint8Array, publicFelts: readonly bigint[], params: StarkParams): VerifyResult {
  const shape = deriveShape(params);
  const { n, ldeSize: N, ldeOffset: s, segments: k, segmentStride: d } = shape;
  if (publicFelts.length !== PUBLIC_INPUT_COUNT || publicFelts.some((x) => typeof x !== 'bigint' || x < 0n || x >= P)) {
    return { ok: false, reason: 'public-inputs' };
  }
  const stmt = statementFromFelts(publicFelts);
  const cfg = friConfig(shape);
  const L = friFolds(cfg);
  const r = new ByteReader(proof);
  const header = readHeader(r, { traceWidth: WIDTH, friLayers: L - 1, segments: k, remainderDegree: params.friRemainderDegree });

  const t = newTranscript(shape, publicFelts);
  t.absorb(header.traceRoot);
  const { alphas, betas } = drawCompositionCoeffs(t);
  t.absorb(header.compRoot);
  const z = drawOodPoint(t);
  const g = rootOfUnity(n);
  const gz: Fp3 = [(z[0] * g) % P, (z[1] * g) % P, (z[2] * g) % P];
  const { oodTraceZ: tz, oodTraceGz: tgz, oodComp: hz } = header;
  absorbOod(t, tz, tgz, hz);

  // The composition relation at z: H(z) from the trace frame == sum_j z^(jd) H'_j(z).
  const boundary = boundaryConstraints(stmt.keyHash);
  const expected = compositionAtZ(n, z, tz, tgz, alphas, betas, boundary);
  let acc: Fp3 = [0n, 0n, 0n];
  const zd = ePow(z, BigInt(d));
  let zp: Fp3 = [1n, 0n, 0n];
  for (let j = 0; j < k; j++) {
    acc = eAdd(acc, eMul(zp, hz[j]));
    zp = eMul(zp, zd);
  }
  if (!eEq(acc, expected)) return { ok: false, reason: 'ood' };

  const dc = drawDeepCoeffs(t, WIDTH, k);
  const dk = deepConstants(tz, tgz, hz, dc);
  const betasFri = friReplay(cfg, header.friRoots, header.remainder, t);
  if (!powOk(t, header.nonce, params.grindingBits)) return { ok: false, reason: 'grinding' };
  const positions = queryPositions(t, shape, header.nonce);

  const depth = shape.treeDepth;
  const friLeaves = Array.from({ length: L - 1 }, (_, i) => layerLeafIndices(positions, i + 1, N));
  const body = readBody(r, {
    queries: positions.length,
    traceWidth: WIDTH,
    compWidth: shape.compositionColumns,
    traceNodes: multiProofLength(depth, positions),
    compNodes: multiProofLength(depth, positions),
    friLeaves: friLeaves.map((l) => l.length),
    friNodes: friLeaves.map((l, i) => multiProofLength(depth - 1 - i, l)),
  });
  r.end();

  if (
    !verifyMany(
      header.traceRoot,
      depth,
      positions,
      body.traceRows.map((row, q) => leafBytes(body.traceSalts[q], row)),
      body.traceNodes,
    )
  ) {
    return { ok: false, reason: 'trace-merkle' };
  }
  if (
    !verifyMany(
      header.compRoot,
      depth,
      positions,
      body.compRows.map((row, q) => leafBytes(body.compSalts[q], row)),
      body.compNodes,
    )
  ) {
    return { ok: false, reason: 'composition-merkle' };
  }
  const w = rootOfUnity(N);
  const cw = shape.compositionColumns;
  const xsQ = positions.map((p) => (s * pow(w, BigInt(p))) % P);
  const denoms: Fp3[] = [];
  for (const x of xsQ) {
    for (const xx of [x, P - x]) denoms.push(eSub(eFrom(xx), z), eSub(eFrom(xx), gz));
  }
  const invs = eBatchInv(denoms);
  const layer0 = positions.map((_, q) => {
    const tRow = body.traceRows[q];
    const cRow = body.compRows[q];
    const fx = deepAt(tRow, 0, cRow, 0, k, invs[4 * q], invs[4 * q + 1], dk, dc);
    const fnx = deepAt(tRow, WIDTH, cRow, cw, k, invs[4 * q + 2], invs[4 * q + 3], dk, dc);
    return [fx, fnx] as const;
  });
  const friErr = friVerify(cfg, header.friRoots, betasFri, header.remainder, positions, layer0, body.fri);
  if (friErr) return { ok: false, reason: friErr };
  return { ok: true, header, body, positions };
}
