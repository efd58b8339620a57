// STARK benchmark at the shipped parameters: prove and verify p50 (wall clock and CPU time of
// this process, since CI machines are shared) and proof size. Prints numbers, asserts nothing.
// Run: npx tsx test/bench/stark.ts
import { generateSecretKey, publicKeyHash, proveSession, verifySession, SECURITY } from '../../lib/auth/stark/index.ts';

const PROVE_RUNS = 9;
const VERIFY_RUNS = 31;

function p50(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
function timed<T>(f: () => T): { wall: number; cpu: number; value: T } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = f();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1000, value };
}

const sk = generateSecretKey();
const inputs = { keyHash: publicKeyHash(sk), sessionId: 'bench-session', expiresAt: 1_900_000_000 };
proveSession(sk, inputs); // warm-up (JIT, twiddle caches)

const proveWall: number[] = [];
const proveCpu: number[] = [];
let last = proveSession(sk, inputs);
for (let i = 0; i < PROVE_RUNS; i++) {
  const r = timed(() => proveSession(sk, inputs));
  proveWall.push(r.wall);
  proveCpu.push(r.cpu);
  last = r.value;
}
verifySession(last.starkProof, last.publicInputs); // warm-up
const verifyWall: number[] = [];
const verifyCpu: number[] = [];
let ok = true;
for (let i = 0; i < VERIFY_RUNS; i++) {
  const r = timed(() => verifySession(last.starkProof, last.publicInputs));
  verifyWall.push(r.wall);
  verifyCpu.push(r.cpu);
  ok &&= r.value;
}

const f = (x: number) => x.toFixed(1);
console.log(`stark params: blowup ${SECURITY.blowup}, queries ${SECURITY.queries}, grinding ${SECURITY.grindingBits} bits, ext degree ${SECURITY.extensionDegree}, trace ${SECURITY.traceLength} rows`);
console.log(`stark security bits: conjectured ${SECURITY.conjecturedBits}, proven ${SECURITY.provenBits}`);
console.log(`stark prove p50 ms: wall ${f(p50(proveWall))}, cpu ${f(p50(proveCpu))} (runs ${PROVE_RUNS})`);
console.log(`stark verify p50 ms: wall ${f(p50(verifyWall))}, cpu ${f(p50(verifyCpu))} (runs ${VERIFY_RUNS}, all verified: ${ok})`);
console.log(`stark proof size bytes: ${last.starkProof.length / 2}`);
