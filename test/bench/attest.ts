/**
 * Attestation benchmark (`npm run bench -- attest`): prints numbers, asserts nothing.
 * `POST /api/attest` ("age ≥ 18", real range proofs made beforehand, each with its own blinding
 * so each has its own nullifier) over HTTP against the local runtime (DynamoDB Local):
 *   - attestations per second, one request at a time and N at once;
 *   - the share of Groth16 verification in a request: the time the service spent in verifyProof
 *     (measured inside lib/attest) over the wall time of the sequential run.
 *   - the first attestation in a cold process (issue 39: ≤ 500 ms): through the runtime, and its
 *     signing half in fresh processes, before (circomlibjs's buildEddsa) and now (_attest-cold.ts).
 * Options: --n N (attestations per run, default 20), --concurrency C (default 4), --cold N (fresh processes each, default 3).
 */
import { randomBytes } from 'node:crypto';
import { scopeSignal } from '#lib/attest/fields.ts';
import { generateProof, terminateCurves, type ProofResult } from '#lib/zk/groth16.ts';
import { startTestRuntime } from '../support/runtime.ts';
import { signedIn } from '../support/storage.ts';
import { coldFirstAttestation, coldSigning } from './_attest-cold.ts';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function proofs(n: number, scope: string): Promise<ProofResult[]> {
  const out: ProofResult[] = [];
  const scopeField = scopeSignal('age-over-18', scope).toString();
  for (let i = 0; i < n; i++) {
    const blinding = BigInt(`0x${randomBytes(30).toString('hex')}`).toString();
    out.push(await generateProof('range_scoped', { value: '30', blinding, min: '18', max: '150', scope: scopeField }));
  }
  return out;
}

/** Issue 39: the first attestation in a cold process. */
const FIRST_TARGET_MS = 500;

async function main(): Promise<void> {
  const n = arg('--n', 20);
  const concurrency = arg('--concurrency', 4);
  await coldSigning(arg('--cold', 3), FIRST_TARGET_MS);
  const rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '1000' });
  // Imported once the runtime has set the DynamoDB endpoint: the same module the handlers use.
  const { verificationTime } = await import('#lib/attest/attestations.ts');
  try {
    const client = await signedIn(rt);
    let coldScope = 0;
    await coldFirstAttestation(arg('--cold', 3), FIRST_TARGET_MS, process.env, async () => {
      const scope = `cold-${coldScope++}`;
      const [p] = await proofs(1, scope);
      const body = JSON.stringify({ schema: 'age-over-18', proof: p!.proof, publicSignals: p!.publicSignals, scope });
      return { body, cookies: [...client.jar].map(([k, v]) => `${k}=${v}`) };
    });
    if (process.argv.includes('--cold-only')) return;
    const send = (p: ProofResult, scope: string) =>
      client.post('/api/attest', { schema: 'age-over-18', proof: p.proof, publicSignals: p.publicSignals, scope });

    // The first request builds Poseidon and loads the issuer key (the curve is built by the proof made here).
    const warm = await proofs(1, 'warm');
    const t0 = performance.now();
    const first = await send(warm[0]!, 'warm');
    const firstMs = performance.now() - t0;
    // Not the row (that is coldFirstAttestation's, above): this process built the curve proving.
    console.log(
      `first attestation through the runtime (cold module state, curve already built by the proofs): ${firstMs.toFixed(0)} ms, status ${first.status}`,
    );

    console.log(`proving ${2 * n} range proofs for the runs …`);
    const seqProofs = await proofs(n, 'seq');
    const parProofs = await proofs(n, 'par');

    verificationTime.ms = 0;
    const latencies: number[] = [];
    const tSeq = performance.now();
    for (const p of seqProofs) {
      const t = performance.now();
      const r = await send(p, 'seq');
      if (r.status !== 201) throw new Error(`attest: ${r.status} ${JSON.stringify(r.json)}`);
      latencies.push(performance.now() - t);
    }
    const seqMs = performance.now() - tSeq;
    const verifyMs = verificationTime.ms;

    let next = 0;
    const tPar = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < parProofs.length) {
          const p = parProofs[next++]!;
          const r = await send(p, 'par');
          if (r.status !== 201) throw new Error(`attest: ${r.status} ${JSON.stringify(r.json)}`);
        }
      }),
    );
    const parMs = performance.now() - tPar;

    console.log(
      `sequential: ${n} attestations in ${(seqMs / 1000).toFixed(2)} s = ${((n * 1000) / seqMs).toFixed(1)} attestations/s, p50 ${p50(latencies).toFixed(0)} ms`,
    );
    console.log(`concurrency ${concurrency}: ${n} attestations in ${(parMs / 1000).toFixed(2)} s = ${((n * 1000) / parMs).toFixed(1)} attestations/s`);
    console.log(
      `Groth16 verification: ${(verifyMs / n).toFixed(1)} ms per attestation = ${((100 * verifyMs) / seqMs).toFixed(0)} % of the sequential wall time`,
    );
  } finally {
    await rt.stop();
    await terminateCurves();
  }
}

await main();
