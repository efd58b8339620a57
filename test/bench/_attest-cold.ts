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
import { loadavg } from 'node:os';
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

/**
 * The first attestation in a cold process, honestly (issue 39): a fresh Node process imports the
 * attest function's bundle (cdk/bundling.ts's settings, split as deployed, so snarkjs is the chunk
 * it loads on first use) with the runtime's environment and `AWS_LAMBDA_FUNCTION_NAME` set (as in
 * a Lambda: the curve single-threaded), then serves its first `POST /api/attest` event. The time
 * is from the handler's call to its answer: everything the first attestation builds (curve, snarkjs,
 * verification key, Poseidon, the issuer key) inside it. Import and node's own boot are printed beside.
 * CPU is the child's own (process.cpuUsage), beside the wall clock; the load average with them.
 */
export async function coldFirstAttestation(
  runs: number,
  target: number,
  env: NodeJS.ProcessEnv,
  request: () => Promise<{ body: string; cookies: string[] }>,
): Promise<void> {
  const dir = join(repo, '.bench', 'attest-first');
  const profile = process.argv.includes('--cpu-prof');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const { outfile: _unused, ...opts } = esbuildOptions(join(repo, 'functions/attest/issue.ts'), '');
  // --cpu-prof: unminified, so that the profile names functions.
  await build({ ...opts, minify: !profile, outdir: dir, splitting: true, chunkNames: 'chunk-[hash]', outExtension: { '.js': '.mjs' }, entryNames: 'issue' });
  const child = join(dir, 'child.mjs');
  writeFileSync(
    child,
    `const cpu0 = process.cpuUsage();
const t0 = performance.now();
const { handler } = await import('./issue.mjs');
const t1 = performance.now();
const cpu1 = process.cpuUsage(cpu0);
const event = JSON.parse(process.env.BENCH_EVENT);
delete process.env.BENCH_EVENT;
const t2 = performance.now();
const res = await handler(event, { awsRequestId: 'cold', functionName: 'attest-issue', getRemainingTimeInMillis: () => 29000 });
const t3 = performance.now();
const cpu3 = process.cpuUsage(cpu0);
const ms = (c) => (c.user + c.system) / 1000;
console.log(JSON.stringify({ bootMs: t0, importMs: t1 - t0, importCpuMs: ms(cpu1), firstMs: t3 - t2, firstCpuMs: ms(cpu3) - ms(cpu1), status: res.statusCode, body: res.statusCode === 201 ? '' : res.body }));
await globalThis.curve_bn128?.terminate?.();
process.exit(0);
`,
  );
  const rows: Array<{ bootMs: number; importMs: number; importCpuMs: number; firstMs: number; firstCpuMs: number; wallMs: number; load: number }> = [];
  for (let i = 0; i < runs; i++) {
    const { body, cookies } = await request();
    const event = {
      version: '2.0',
      routeKey: 'POST /api/attest',
      rawPath: '/api/attest',
      rawQueryString: '',
      cookies,
      headers: { 'content-type': 'application/json', host: 'localhost' },
      body,
      isBase64Encoded: false,
      requestContext: { requestId: `cold-${i}`, http: { method: 'POST', path: '/api/attest', sourceIp: '10.0.0.1', userAgent: 'bench' } },
    };
    // Not the runtime's multi-concurrency switch (lib/observability.ts sets it in this process): a Lambda instance runs one invocation.
    const { AWS_LAMBDA_MAX_CONCURRENCY: _multi, ...own } = env;
    const childEnv = {
      ...own,
      BENCH_EVENT: JSON.stringify(event),
      AWS_LAMBDA_FUNCTION_NAME: 'attest-issue',
      CIRCUITS_DIR: join(repo, 'circuits', 'artifacts'),
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    };
    const args = profile ? ['--cpu-prof', '--cpu-prof-dir', join(repo, 'profiles'), child] : [child];
    const load = loadavg()[0]!;
    const t = performance.now();
    const p = spawnSync(process.execPath, args, { encoding: 'utf8', env: childEnv, cwd: dir });
    const wallMs = performance.now() - t;
    const line = p.stdout.trim().split('\n').pop() ?? '';
    const out = line.startsWith('{') ? JSON.parse(line) : undefined;
    if (p.status !== 0 || out?.status !== 201) throw new Error(`cold attestation failed: ${p.stderr || line}`);
    rows.push({ ...out, wallMs, load });
  }
  rmSync(dir, { recursive: true, force: true });
  const m = (k: keyof (typeof rows)[number]) => p50(rows.map((r) => r[k]));
  const first = m('firstMs');
  console.log(`first attestation in a cold process (attest function bundle as a Lambda runs it; p50 of ${runs} fresh processes, load ${m('load').toFixed(1)})`);
  console.log(`  node boot                           ${m('bootMs').toFixed(0)} ms`);
  console.log(`  import bundle                       ${m('importMs').toFixed(0)} ms wall, ${m('importCpuMs').toFixed(0)} ms CPU`);
  console.log(
    `  first POST /api/attest → 201        ${first.toFixed(0)} ms wall, ${m('firstCpuMs').toFixed(0)} ms CPU  target ≤ ${target} ms ${first <= target ? '✔' : '✘'}  (each run: ${rows.map((r) => `${r.firstMs.toFixed(0)}/${r.firstCpuMs.toFixed(0)}`).join(', ')} ms wall/CPU)`,
  );
  console.log(`  process wall clock                  ${m('wallMs').toFixed(0)} ms`);
}
