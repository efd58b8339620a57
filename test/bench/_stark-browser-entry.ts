// Entry of the browser bundle the STARK bench runs in headless Chromium: the client prover
// (lib/client/stark-key.ts) and the verifier, timed with performance.now().
import { createSessionKey, proveSessionKey } from '../../lib/client/stark-key.ts';
import { verifyClientSessionProof, decodeKeyHash } from '../../lib/stark/index.ts';

export function run(proveRuns: number, verifyRuns: number): string {
  const now = Math.floor(Date.now() / 1000);
  const key = createSessionKey();
  const keyHash = decodeKeyHash(key.keyHash)!;
  let proof = proveSessionKey(key, { sessionId: 'bench-session', nowSeconds: now }); // warm-up
  const prove: number[] = [];
  for (let i = 0; i < proveRuns; i++) {
    const t = performance.now();
    proof = proveSessionKey(key, { sessionId: 'bench-session', nowSeconds: now });
    prove.push(performance.now() - t);
  }
  const verify: number[] = [];
  let ok = true;
  for (let i = 0; i < verifyRuns; i++) {
    const t = performance.now();
    ok = verifyClientSessionProof(proof.stark_proof, { keyHash, sessionId: 'bench-session', nowSeconds: now }) !== null && ok;
    verify.push(performance.now() - t);
  }
  return JSON.stringify({ prove, verify, ok, bytes: proof.stark_proof.length / 2, userAgent: navigator.userAgent });
}
