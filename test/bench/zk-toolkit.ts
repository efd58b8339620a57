/**
 * ZK toolkit over HTTP (`npm run bench -- zk-toolkit`): prints numbers, asserts nothing.
 *   - Poseidon hashes/s through the local runtime against circomlibjs in this process (the ratio
 *     is the API's overhead: HTTP, API Gateway emulation, middy, the DynamoDB rate-limit counter),
 *     beside a bare node:http server doing only the same hash with the same client (the floor);
 *   - POST proof/generate warm p50 against snarkjs.groth16.fullProve in the same process;
 *   - POST proof/verify warm p50;
 *   - the proof function's cold start: a fresh process imports the esbuild bundle of
 *     functions/zk-toolkit/proof-generate.ts (as deployed) and serves its first request.
 * The library-level numbers (generateProof vs fullProve without HTTP) are test/bench/groth16.ts's.
 * Options: --runs N (default 20), --cold N (default 3), --hashes N (default 1000).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { buildPoseidon } from 'circomlibjs';
import { esbuildOptions } from '../../cdk/bundling.ts';
import { hashPoseidon } from '#lib/zk/poseidon.ts';
import { startTestRuntime } from '../support/runtime.ts';

/** Issue 39: Poseidon hashes/s through the local runtime over circomlibjs's in this process. */
const RATIO_TARGET = 0.25;

const repo = join(import.meta.dirname, '..', '..');
const CIRCUIT = 'password';
const INPUTS = { pw_lo: '123456789', pw_hi: '987654321', salt: '42' };

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

type SnarkJs = {
  groth16: { fullProve(i: unknown, w: string, z: string): Promise<{ proof: unknown; publicSignals: string[] }> };
};

async function post(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as { data?: unknown };
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** Requests/s and latencies of `call` at a fixed concurrency. */
async function measure(n: number, concurrency: number, call: (i: number) => Promise<unknown>) {
  let next = 0;
  const lat: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const s = performance.now();
        await call(i);
        lat.push(performance.now() - s);
      }
    }),
  );
  return { rate: n / ((performance.now() - t0) / 1000), p50: pct(lat, 50), p99: pct(lat, 99) };
}

async function poseidonThroughput(base: string, n: number) {
  // In-process first: its loop blocks the event loop, which would break idle keep-alive sockets.
  const poseidon = await buildPoseidon();
  for (let i = 0; i < 1000; i++) poseidon([BigInt(i)]);
  const m = n * 20;
  const t1 = performance.now();
  let sink = 0n;
  for (let i = 0; i < m; i++) sink ^= poseidon.F.toObject(poseidon([BigInt(i)]));
  const directRate = m / ((performance.now() - t1) / 1000);
  if (sink === -1n) console.log(sink); // keep the loop observable

  const concurrency = 8;
  const url = `${base}/api/zk-toolkit/hash/poseidon`;
  for (let i = 0; i < 50; i++) await post(url, { input: String(i) }); // warm: handler import, wasm build
  const http = await measure(n, concurrency, (i) => post(url, { input: String(i) }));

  // The same handler called in this process without HTTP: the stack (middy, zod, the DynamoDB
  // rate-limit counter) without the emulator and the socket.
  const { handler } = await import('../../functions/zk-toolkit/hash-poseidon.ts');
  const event = (i: number) =>
    ({
      version: '2.0',
      routeKey: 'POST /api/zk-toolkit/hash/poseidon',
      rawPath: '/api/zk-toolkit/hash/poseidon',
      rawQueryString: '',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: String(i) }),
      isBase64Encoded: false,
      requestContext: { requestId: 'bench', http: { method: 'POST', path: '/api/zk-toolkit/hash/poseidon', sourceIp: '127.0.0.1' } },
    }) as never;
  const inProc = await measure(n, concurrency, async (i) => {
    const r = await handler(event(i));
    if (r.statusCode !== 200) throw new Error(`handler: ${r.statusCode} ${r.body}`);
  });

  // The floor: a bare node:http server in this process doing only the same hash (lib/zk/poseidon.ts's
  // request function, JSON in and out), against the same client: what no gateway or stack could beat.
  const bare = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void hashPoseidon(JSON.parse(Buffer.concat(chunks).toString('utf8'))).then((data) => {
        const out = JSON.stringify({ data });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(out)) });
        res.end(out);
      });
    });
  });
  await new Promise<void>((ok) => bare.listen(0, '127.0.0.1', ok));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
  for (let i = 0; i < 50; i++) await post(bareUrl, { input: String(i) });
  const floor = await measure(n, concurrency, (i) => post(bareUrl, { input: String(i) }));
  await new Promise((ok) => bare.close(ok));

  const ratio = http.rate / directRate;
  console.log(`Poseidon (one input), ${n} requests at concurrency ${concurrency}, load average ${loadavg()[0]!.toFixed(1)}`);
  console.log(`  POST hash/poseidon (local runtime)  ${http.rate.toFixed(0)} hashes/s  (p50 ${ms(http.p50)}, p99 ${ms(http.p99)})`);
  console.log(`  its handler called in-process       ${inProc.rate.toFixed(0)} hashes/s  (p50 ${ms(inProc.p50)}; no HTTP, same stack)`);
  console.log(`  bare node:http server, same hash    ${floor.rate.toFixed(0)} hashes/s  (p50 ${ms(floor.p50)}; the floor for this client)`);
  console.log(`  circomlibjs in-process              ${directRate.toFixed(0)} hashes/s`);
  console.log(`  API overhead (circomlibjs / HTTP)   ${(directRate / http.rate).toFixed(1)}x`);
  console.log(
    `  local runtime / circomlibjs         ${ratio.toFixed(3)}  target ≥ ${RATIO_TARGET} ${ratio >= RATIO_TARGET ? '✔' : '✘'}  (the bare server's: ${(floor.rate / directRate).toFixed(3)})`,
  );
}

async function proofs(base: string, runs: number) {
  const snarkjs = (await import('snarkjs')) as SnarkJs;
  const { artifactPath } = await import('#lib/zk/circuits.ts');
  const wasm = artifactPath(CIRCUIT, 'wasm');
  const zkey = artifactPath(CIRCUIT, 'zkey');
  const gen = `${base}/api/zk-toolkit/proof/generate`;
  const ver = `${base}/api/zk-toolkit/proof/verify`;
  for (let i = 0; i < 3; i++) {
    await post(gen, { circuit: CIRCUIT, inputs: INPUTS });
    await snarkjs.groth16.fullProve(INPUTS, wasm, zkey);
  }
  const http: number[] = [];
  const direct: number[] = [];
  for (let i = 0; i < runs; i++) {
    // Interleaved, so that drift (GC, other load) hits both alike.
    let t = performance.now();
    await post(gen, { circuit: CIRCUIT, inputs: INPUTS });
    http.push(performance.now() - t);
    t = performance.now();
    await snarkjs.groth16.fullProve(INPUTS, wasm, zkey);
    direct.push(performance.now() - t);
  }
  const proof = (await post(gen, { circuit: CIRCUIT, inputs: INPUTS })) as { proof: unknown; publicSignals: string[] };
  const body = { circuit: CIRCUIT, ...proof };
  for (let i = 0; i < 3; i++) await post(ver, body);
  const verify: number[] = [];
  for (let i = 0; i < runs * 2; i++) {
    const t = performance.now();
    const out = (await post(ver, body)) as { valid: boolean };
    verify.push(performance.now() - t);
    if (!out.valid) throw new Error('proof/verify said valid: false');
  }
  const h = pct(http, 50);
  const d = pct(direct, 50);
  console.log(`\nGroth16, ${CIRCUIT} circuit, ${runs} warm runs`);
  console.log(`  POST proof/generate p50             ${ms(h)}  (p90 ${ms(pct(http, 90))})`);
  console.log(`  snarkjs.groth16.fullProve p50       ${ms(d)}  (same process)`);
  console.log(`  ratio (aim: within 1.3x)            ${(h / d).toFixed(2)}x`);
  console.log(`  POST proof/verify p50 (aim: <50 ms) ${ms(pct(verify, 50))}  (p90 ${ms(pct(verify, 90))}, ${runs * 2} runs)`);
}

/** The deployed bundle of the proof function, imported by a fresh Node process that serves one request. */
async function coldStart(env: NodeJS.ProcessEnv, runs: number) {
  const dir = join(repo, '.bench', 'zk-toolkit');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, 'proof-generate.mjs');
  await build(esbuildOptions(join(repo, 'functions/zk-toolkit/proof-generate.ts'), outfile));
  const event = {
    version: '2.0',
    routeKey: 'POST /api/zk-toolkit/proof/generate',
    rawPath: '/api/zk-toolkit/proof/generate',
    rawQueryString: '',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ circuit: CIRCUIT, inputs: INPUTS }),
    isBase64Encoded: false,
    requestContext: { requestId: 'cold', http: { method: 'POST', path: '/api/zk-toolkit/proof/generate', sourceIp: '10.0.0.1' } },
  };
  const child = join(dir, 'child.mjs');
  writeFileSync(
    child,
    `const t0 = performance.now();
const { handler } = await import(${JSON.stringify(outfile)});
const t1 = performance.now();
const res = await handler(${JSON.stringify(event)}, {});
const t2 = performance.now();
await globalThis.curve_bn128?.terminate();
console.log(JSON.stringify({ importMs: t1 - t0, firstMs: t2 - t1, status: res.statusCode }));
process.exit(0);
`,
  );
  const cold: Array<{ importMs: number; firstMs: number; wallMs: number }> = [];
  // A Lambda reads the artifacts from its layer: point the bundle at the repository's.
  // Not the runtime's multi-concurrency switch (lib/observability.ts sets it in this process): without
  // Lambda's invoke store, Powertools' logger throws at import ('InvokeStore is not available').
  const { AWS_LAMBDA_MAX_CONCURRENCY: _multi, ...own } = env;
  // AWS_LAMBDA_FUNCTION_NAME: as in a Lambda, the curve single-threaded (lib/zk/bn128-curve.ts: the
  // bundle's worker threads never answer, and the first proof waited forever).
  const childEnv = {
    ...own,
    AWS_LAMBDA_FUNCTION_NAME: 'zk-toolkit-proof-generate',
    CIRCUITS_DIR: join(repo, 'circuits', 'artifacts'),
    POWERTOOLS_LOG_LEVEL: 'ERROR',
  };
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const p = spawnSync(process.execPath, [child], { encoding: 'utf8', env: childEnv });
    const wallMs = performance.now() - t;
    const line = p.stdout.trim().split('\n').pop() ?? '';
    const out = line.startsWith('{') ? JSON.parse(line) : undefined;
    if (p.status !== 0 || out?.status !== 200) throw new Error(`cold start failed: ${p.stderr || line}`);
    cold.push({ importMs: out.importMs, firstMs: out.firstMs, wallMs });
  }
  console.log(`\nproof function cold start (esbuild bundle ${(statSync(outfile).size / 1024).toFixed(0)} KB, ${runs} fresh processes, p50)`);
  console.log(
    `  import bundle                       ${ms(
      pct(
        cold.map((c) => c.importMs),
        50,
      ),
    )}`,
  );
  console.log(
    `  first request (curve, keys, proof)  ${ms(
      pct(
        cold.map((c) => c.firstMs),
        50,
      ),
    )}`,
  );
  console.log(
    `  import + first proof                ${ms(
      pct(
        cold.map((c) => c.importMs + c.firstMs),
        50,
      ),
    )}`,
  );
  console.log(
    `  process wall clock                  ${ms(
      pct(
        cold.map((c) => c.wallMs),
        50,
      ),
    )}  (node boot included)`,
  );
  rmSync(join(repo, '.bench'), { recursive: true, force: true });
}

const rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '100000' });
try {
  console.log(`zk-toolkit over HTTP (node ${process.version})`);
  await poseidonThroughput(rt.url, arg('--hashes', 1000));
  await proofs(rt.url, arg('--runs', 20));
  await coldStart(process.env, arg('--cold', 3));
} finally {
  await rt.stop();
  const { terminateCurves } = await import('#lib/zk/groth16.ts');
  await terminateCurves();
  await (globalThis as { curve_bn128?: { terminate(): Promise<void> } | null }).curve_bn128?.terminate();
}
