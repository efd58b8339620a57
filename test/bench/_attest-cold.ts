/**
 * The signing half of a first attestation in a fresh process (test/bench/attest.ts): each of two
 * esbuild bundles, imported by a new Node process, hashes an attestation (lib/attest/fields.ts),
 * signs it with the issuer scheme and verifies the signature, once. "circomlibjs" is the path
 * before lib/attest/eddsa.ts used the plain-bigint curve (circomlibjs's buildEddsa: two bn128 wasm
 * builds, Pedersen, MiMC7, MiMCSponge); "lib/attest" is today's. Runs alternate, so that the
 * machine's load hits both alike; both must print the same signature.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { esbuildOptions } from '../../cdk/bundling.ts';

const repo = join(import.meta.dirname, '..', '..');
const FIELDS = `{ id: '6f1c2b8e-4d3a-4b5c-9e7f-0a1b2c3d4e5f', schema: 'age-over-18', claimFields: [30n, 18n, 150n], nullifier: 77n,
  scopeSignal: 5n, issuedAtSeconds: 1_700_000_000, expiresAtSeconds: 1_731_536_000 }`;

const entries = {
  circomlibjs: `import buildEddsa from '${repo}/node_modules/circomlibjs/src/eddsa.js';
import { attestationHash } from '${repo}/lib/attest/fields.ts';
export async function run() {
  const key = new Uint8Array(32).fill(7);
  const msg = await attestationHash(${FIELDS});
  const e = await buildEddsa();
  const F = e.babyJub.F;
  const A = e.prv2pub(key);
  const sig = e.signPoseidon(key, F.e(msg));
  if (!e.verifyPoseidon(F.e(msg), sig, A)) throw new Error('circomlibjs: signature does not verify');
  return [F.toObject(sig.R8[0]).toString(), F.toObject(sig.R8[1]).toString(), sig.S.toString()].join(':');
}
`,
  'lib/attest': `import { publicKeyOf, signPoseidon, verifyPoseidon } from '${repo}/lib/attest/eddsa.ts';
import { attestationHash } from '${repo}/lib/attest/fields.ts';
export async function run() {
  const key = new Uint8Array(32).fill(7);
  const msg = await attestationHash(${FIELDS});
  const sig = await signPoseidon(key, msg);
  if (!(await verifyPoseidon(msg, sig, await publicKeyOf(key)))) throw new Error('lib/attest: signature does not verify');
  return [sig.R8.x, sig.R8.y, sig.S].join(':');
}
`,
};

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

export async function coldSigning(runs: number, target: number): Promise<void> {
  const dir = join(repo, '.bench', 'attest-cold');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const children: Record<string, string> = {};
  for (const [name, source] of Object.entries(entries)) {
    const slug = name.replace('/', '-');
    writeFileSync(join(dir, `${slug}.ts`), source);
    const bundle = join(dir, `${slug}.mjs`);
    await build(esbuildOptions(join(dir, `${slug}.ts`), bundle));
    children[name] = join(dir, `${slug}-child.mjs`);
    writeFileSync(
      children[name],
      `const t0 = performance.now();
const { run } = await import(${JSON.stringify(bundle)});
const sig = await run();
console.log(JSON.stringify({ ms: performance.now() - t0, sig }));
process.exit(0);
`,
    );
  }
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(entries).map((k) => [k, []]));
  const sigs = new Set<string>();
  for (let i = 0; i < runs; i++) {
    for (const [name, child] of Object.entries(children)) {
      const p = spawnSync(process.execPath, [child], { encoding: 'utf8', env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'ERROR' } });
      const line = p.stdout.trim().split('\n').pop() ?? '';
      if (p.status !== 0 || !line.startsWith('{')) throw new Error(`${name}: ${p.stderr || line}`);
      const out = JSON.parse(line) as { ms: number; sig: string };
      times[name]!.push(out.ms);
      sigs.add(out.sig);
    }
  }
  rmSync(join(repo, '.bench'), { recursive: true, force: true });
  const before = p50(times.circomlibjs!);
  const after = p50(times['lib/attest']!);
  console.log(`first attestation's signing in a fresh process (import, attestation hash, sign, verify; p50 of ${runs} alternated runs)`);
  console.log(`  circomlibjs buildEddsa (before)    ${before.toFixed(0)} ms`);
  console.log(
    `  lib/attest/eddsa.ts (now)          ${after.toFixed(0)} ms  target ≤ ${target} ms ${after <= target ? '✔' : '✘'}  (${(before / after).toFixed(1)}× faster)`,
  );
  console.log(`  same signature from both: ${sigs.size === 1 ? 'yes' : 'NO'}`);
}
