/**
 * Groth16 benchmark (`npx tsx test/bench/groth16.ts`): prints numbers, asserts nothing.
 *   - generateProof('password') warm p50 vs snarkjs.groth16.fullProve in the same process;
 *   - verifyProof warm p50;
 *   - cold start: a fresh child process importing lib/zk/groth16 and making its first proof.
 * Options: --runs N (default 20), --cold N (default 3).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const INPUTS = { pw_lo: '123456789', pw_hi: '987654321', salt: '42' };

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const ms = (x: number) => `${x.toFixed(1)} ms`;
const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};

async function child(): Promise<void> {
  const t0 = performance.now();
  const g = await import('#lib/zk/groth16.ts');
  const tImport = performance.now();
  const { proof, publicSignals } = await g.generateProof('password', INPUTS);
  const tProof = performance.now();
  const ok = await g.verifyProof('password', proof, publicSignals);
  const tVerify = performance.now();
  await g.terminateCurves();
  process.stdout.write(JSON.stringify({ importMs: tImport - t0, firstProofMs: tProof - tImport, firstVerifyMs: tVerify - tProof, ok }) + '\n');
}

async function main(): Promise<void> {
  const runs = arg('--runs', 20);
  const coldRuns = arg('--cold', 3);
  const snarkjs = (await import('snarkjs')) as {
    groth16: {
      fullProve(i: unknown, w: string, z: string): Promise<{ proof: unknown; publicSignals: string[] }>;
      verify(vkey: unknown, publicSignals: string[], proof: unknown): Promise<boolean>;
    };
  };
  const { artifactPath } = await import('#lib/zk/circuits.ts');
  const g = await import('#lib/zk/groth16.ts');
  const wasm = artifactPath('password', 'wasm');
  const zkey = artifactPath('password', 'zkey');

  // Warm-up both paths (curve, wasm compilation, file caches).
  for (let i = 0; i < 3; i++) {
    await g.generateProof('password', INPUTS);
    await snarkjs.groth16.fullProve(INPUTS, wasm, zkey);
  }
  const ours: number[] = [];
  const direct: number[] = [];
  for (let i = 0; i < runs; i++) {
    // Interleaved so that drift (thermal, GC) hits both sides alike.
    let t = performance.now();
    await g.generateProof('password', INPUTS);
    ours.push(performance.now() - t);
    t = performance.now();
    await snarkjs.groth16.fullProve(INPUTS, wasm, zkey);
    direct.push(performance.now() - t);
  }
  const { proof, publicSignals } = await g.generateProof('password', INPUTS);
  const vkey = JSON.parse(readFileSync(artifactPath('password', 'vkey'), 'utf8'));
  const verify: number[] = [];
  const directVerify: number[] = [];
  for (let i = 0; i < 3; i++) {
    await g.verifyProof('password', proof, publicSignals);
    await snarkjs.groth16.verify(vkey, publicSignals, proof);
  }
  for (let i = 0; i < runs * 2; i++) {
    let t = performance.now();
    await g.verifyProof('password', proof, publicSignals);
    verify.push(performance.now() - t);
    t = performance.now();
    await snarkjs.groth16.verify(vkey, publicSignals, proof);
    directVerify.push(performance.now() - t);
  }
  await g.terminateCurves();

  const cold: Array<{ importMs: number; firstProofMs: number; firstVerifyMs: number; wallMs: number }> = [];
  const self = fileURLToPath(import.meta.url);
  for (let i = 0; i < coldRuns; i++) {
    const t = performance.now();
    // Same node and tsx loader as this process (process.execArgv), fresh module graph.
    const r = spawnSync(process.execPath, [...process.execArgv, self, '--child'], { encoding: 'utf8' });
    const wallMs = performance.now() - t;
    if (r.status !== 0) throw new Error(`cold child failed: ${r.stderr}`);
    cold.push({ ...JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}'), wallMs });
  }

  const o = p50(ours);
  const d = p50(direct);
  console.log(`groth16 benchmark (password circuit, ${runs} warm runs, node ${process.version})`);
  console.log(`  generateProof warm p50          ${ms(o)}`);
  console.log(`  snarkjs.groth16.fullProve p50   ${ms(d)}`);
  console.log(`  ratio generateProof / fullProve ${(o / d).toFixed(2)}`);
  console.log(`  verifyProof warm p50            ${ms(p50(verify))}  (${runs * 2} runs)`);
  console.log(`  snarkjs.groth16.verify p50      ${ms(p50(directVerify))}  (cached vkey object; no shape, on-curve or subgroup checks)`);
  console.log(`  cold start (${coldRuns} fresh processes, p50):`);
  console.log(`    import lib/zk/groth16         ${ms(p50(cold.map((c) => c.importMs)))}`);
  console.log(`    first proof                   ${ms(p50(cold.map((c) => c.firstProofMs)))}`);
  console.log(`    import + first proof          ${ms(p50(cold.map((c) => c.importMs + c.firstProofMs)))}`);
  console.log(`    first verify                  ${ms(p50(cold.map((c) => c.firstVerifyMs)))}`);
  console.log(`    process wall clock            ${ms(p50(cold.map((c) => c.wallMs)))}  (node + tsx boot included)`);
}

if (process.argv.includes('--child')) await child();
else await main();
