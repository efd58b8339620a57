import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startTestRuntime } from '../support/runtime.ts';
import type { LoadResult, LoadSpec } from './_load.ts';

/**
 * The hot path: requests/s and latency through the local runtime (API Gateway emulator, the
 * handler stack, the handler) with 16 concurrent keep-alive clients, driven from a separate
 * process (_load.ts) so that the client does not share the server's event loop.
 *
 * The runtime runs with RATE_LIMIT_MULTIPLIER=1000000 so that the limit is not what is measured
 * (every request is still counted by the leased rate limiter), and POWERTOOLS_LOG_LEVEL=CRITICAL
 * as in the tests (no per-request log line). Targets (issue 10, on 2 cores): Poseidon ≥ 2,000
 * req/s, GET /api/init ≥ 3,000 req/s.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
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
  { name: 'POST /api/zk-toolkit/hash/poseidon', path: '/api/zk-toolkit/hash/poseidon', method: 'POST' as const, body: JSON.stringify({ inputs: ['1', '2'] }), target: 2000 },
  { name: 'GET /api/init', path: '/api/init', method: 'GET' as const, target: 3000 },
];

const rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '1000000' });
try {
  console.log(`through the local runtime: ${CONCURRENCY} concurrent keep-alive clients in a separate process, ${SECONDS} s after a 1 s warm-up`);
  console.log('  (RATE_LIMIT_MULTIPLIER=1000000: every request passes the leased rate limiter, none is refused)');
  for (const t of targets) {
    const r = await load({ url: `${rt.url}${t.path}`, method: t.method, body: t.body, concurrency: CONCURRENCY, seconds: SECONDS, warmupSeconds: 1 });
    const statuses = Object.entries(r.statuses).map(([s, n]) => `${s}×${n}`).join(' ');
    const verdict = r.rps >= t.target ? '✔' : '✘';
    console.log(
      `  ${t.name.padEnd(36)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  [${statuses}]  target ≥ ${t.target} ${verdict}`,
    );
  }
} finally {
  await rt.stop();
}
