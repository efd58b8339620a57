import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startTestRuntime } from '../support/runtime.ts';
import type { LoadResult, LoadSpec } from './_load.ts';
import { printSigningRows, signingPath } from './_signing-path.ts';

/**
 * The hot path: requests/s and latency through the local runtime (API Gateway emulator, the
 * handler stack, the handler) with 16 concurrent keep-alive clients, driven from a separate
 * process (_load.ts) so that the client does not share the server's event loop.
 *
 * The runtime runs with RATE_LIMIT_MULTIPLIER=1000000 so that the limit is not what is measured
 * (every request is still counted by the leased rate limiter), and POWERTOOLS_LOG_LEVEL=CRITICAL
 * as in the tests (no per-request log line). Targets (issue 10, on 2 cores): Poseidon ≥ 2,000
 * req/s, GET /api/init ≥ 3,000 req/s; issue 39: Poseidon's requests/s at least 0.25 of circomlibjs's
 * two-input hashes/s in this process; compress-native and a compressed transfer through the API
 * ≤ 2 × (a plain authenticated GET + the same work in process) and ≤ 2.5 × that GET (_signing-path.ts).
 *
 * Requests/s depend on what else the machine runs; the server's CPU time per request does much
 * less, so it is printed too, with the load average, and with the same handler called in process
 * (the difference is the emulator's and HTTP's share).
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Issue 39's signing-path rows (_signing-path.ts): rounds of compress-native and transfer. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
/** HOTPATH_ROWS=signing: only the signing-path rows (the throughput rows take half a minute of both cores). */
const ONLY_SIGNING = process.env.HOTPATH_ROWS === 'signing';
const CONCURRENCY = 16;

function load(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '_load.ts'), JSON.stringify(spec)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', fail);
    child.on('exit', (code) => (code === 0 ? ok(JSON.parse(out) as LoadResult) : fail(new Error(`load generator exited ${code}`))));
  });
}

const targets = [
  {
    name: 'POST /api/zk-toolkit/hash/poseidon',
    path: '/api/zk-toolkit/hash/poseidon',
    handler: 'functions/zk-toolkit/hash-poseidon.ts',
    method: 'POST' as const,
    body: JSON.stringify({ inputs: ['1', '2'] }),
    target: 2000,
  },
  { name: 'GET /api/init', path: '/api/init', handler: 'functions/init/get.ts', method: 'GET' as const, target: 3000 },
];

/** Issue 39: Poseidon through the local runtime against circomlibjs's in this process. */
const POSEIDON_RATIO_TARGET = 0.25;

/** circomlibjs's wasm Poseidon (the one the route uses) in this process, two inputs as the requests send: hashes/s. */
async function circomlibjsPoseidonRate(): Promise<number> {
  const { getPoseidon } = await import('#lib/zk/circomlib/poseidon.ts');
  const h = await getPoseidon();
  for (let i = 0; i < 1000; i++) h([BigInt(i), 2n]);
  const n = 20_000;
  const t0 = performance.now();
  let sink = 0n;
  for (let i = 0; i < n; i++) sink ^= h.F.toObject(h([BigInt(i), 2n]));
  if (sink === -1n) console.log(sink); // keeps the loop's result observable
  return n / ((performance.now() - t0) / 1000);
}

/** The server's CPU milliseconds (user + system) spent while `work` runs. */
async function cpuMs<T>(work: () => Promise<T>): Promise<[T, number]> {
  const before = process.cpuUsage();
  const out = await work();
  const used = process.cpuUsage(before);
  return [out, (used.user + used.system) / 1000];
}

/** The handler called in this process, 16 calls in flight, for `seconds`: calls/s and CPU per call. */
async function direct(t: (typeof targets)[number], seconds: number) {
  const { handler } = (await import(join(import.meta.dirname, '..', '..', t.handler))) as { handler: (e: unknown) => Promise<{ statusCode?: number }> };
  const event = () => ({
    version: '2.0',
    routeKey: `${t.method} ${t.path}`,
    rawPath: t.path,
    rawQueryString: '',
    headers: t.body ? { 'content-type': 'application/json' } : {},
    body: t.body,
    isBase64Encoded: false,
    requestContext: { requestId: 'bench', http: { method: t.method, path: t.path, sourceIp: '127.0.0.2' } },
  });
  let calls = 0;
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  const [, ms] = await cpuMs(() =>
    Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() < end) {
          const r = await handler(event());
          if (r.statusCode !== 200) throw new Error(`status ${r.statusCode}`);
          calls++;
        }
      }),
    ),
  );
  return { rps: calls / ((performance.now() - t0) / 1000), cpuPerCall: ms / calls };
}

const rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '1000000' });
try {
  console.log(`through the local runtime: ${CONCURRENCY} concurrent keep-alive clients in a separate process, ${SECONDS} s after 1 s of warm-up`);
  console.log('  (RATE_LIMIT_MULTIPLIER=1000000: every request passes the leased rate limiter, none is refused)');
  console.log(
    `  load average before: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} (on ${navigator.hardwareConcurrency} cores)`,
  );
  for (const t of ONLY_SIGNING ? [] : targets) {
    const spec = { url: `${rt.url}${t.path}`, method: t.method, body: t.body, concurrency: CONCURRENCY, seconds: SECONDS, warmupSeconds: 0 };
    await load({ ...spec, seconds: 1 }); // warm-up: module import, curve build, first leases
    const [r, ms] = await cpuMs(() => load(spec));
    const statuses = Object.entries(r.statuses)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    const verdict = r.rps >= t.target ? '✔' : '✘';
    console.log(`  ${t.name}`);
    console.log(
      `    HTTP:   ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  [${statuses}]  target ≥ ${t.target} ${verdict}`,
    );
    console.log(`            server CPU ${(ms / r.requests).toFixed(3)} ms per request (one core's worth: ${((r.requests / ms) * 1000).toFixed(0)} req/s)`);
    const d = await direct(t, Math.min(SECONDS, 3));
    console.log(
      `    direct: ${d.rps.toFixed(0).padStart(6)} calls/s, CPU ${d.cpuPerCall.toFixed(3)} ms per call (the handler stack without HTTP and the emulator)`,
    );
    if (t.path.endsWith('/hash/poseidon')) {
      const lib = await circomlibjsPoseidonRate();
      const ratio = r.rps / lib;
      console.log(
        `    vs circomlibjs in process: ${lib.toFixed(0)} two-input hashes/s; HTTP / in process ${ratio.toFixed(2)}  target ≥ ${POSEIDON_RATIO_TARGET} ${ratio >= POSEIDON_RATIO_TARGET ? '✔' : '✘'}`,
      );
    }
  }
  console.log(
    `  load average after: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  const { rows, plain } = await signingPath(rt.url, ROUNDS);
  printSigningRows(rows, plain);
} finally {
  await rt.stop();
}
