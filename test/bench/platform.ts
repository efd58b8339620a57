import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { esbuildOptions } from '../../cdk/bundling.ts';
import { routes } from '../../functions/routes.ts';
import { startTestRuntime } from '../support/runtime.ts';

/**
 * The platform's numbers: GET /api/init through the local runtime against a direct in-process
 * call of the same handler (the ratio is the emulator's overhead), then per function the bundle
 * size and the time to import its bundle in a fresh process (a cold-start proxy).
 */
const repo = join(import.meta.dirname, '..', '..');
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const ms = (x: number) => `${x.toFixed(2)} ms`;

async function initThroughput() {
  const rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '100000' });
  try {
    const { handler } = await import('../../functions/init/get.ts');
    const event = {
      version: '2.0',
      routeKey: 'GET /api/init',
      rawPath: '/api/init',
      rawQueryString: '',
      headers: {},
      requestContext: { requestId: 'bench', http: { method: 'GET', path: '/api/init', sourceIp: '127.0.0.1' } },
      isBase64Encoded: false,
    } as never;
    const N = 400;
    const concurrency = 8;
    const measure = async (call: () => Promise<unknown>) => {
      for (let i = 0; i < 20; i++) await call(); // warm
      const lat: number[] = [];
      const t0 = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next++ < N) {
            const s = performance.now();
            await call();
            lat.push(performance.now() - s);
          }
        }),
      );
      const secs = (performance.now() - t0) / 1000;
      return { rps: N / secs, p50: pct(lat, 50), p99: pct(lat, 99) };
    };
    const http = await measure(async () => {
      const r = await fetch(`${rt.url}/api/init`);
      if (r.status !== 200) throw new Error(`status ${r.status}`);
      await r.arrayBuffer();
    });
    const direct = await measure(() => handler(event));
    console.log(`GET /api/init, ${N} requests, concurrency ${concurrency}`);
    console.log(`  local runtime (HTTP): ${http.rps.toFixed(0)} req/s, p50 ${ms(http.p50)}, p99 ${ms(http.p99)}`);
    console.log(`  direct handler call:  ${direct.rps.toFixed(0)} req/s, p50 ${ms(direct.p50)}, p99 ${ms(direct.p99)}`);
    console.log(`  emulator overhead: ${(direct.rps / http.rps).toFixed(2)}x throughput, p50 ${(http.p50 - direct.p50).toFixed(2)} ms`);
  } finally {
    await rt.stop();
  }
}

async function bundles() {
  const out = join(repo, '.bench', 'bundles');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const entries = [...routes.map((r) => ({ name: `${r.method} ${r.path}`, file: r.handler })), { name: '$default', file: 'functions/fallback.ts' }];
  console.log('\nfunction bundles (esbuild, as deployed) and a cold import in a fresh Node process');
  console.log('  size KB  import ms  route');
  for (const [i, e] of entries.entries()) {
    const outfile = join(out, `fn${i}.mjs`);
    const built = await build(esbuildOptions(join(repo, e.file), outfile)).catch((err: Error) => err);
    if (built instanceof Error) {
      console.log(`  build failed: ${e.name}: ${built.message.split('\n')[1] ?? built.message}`);
      continue;
    }
    const size = statSync(outfile).size / 1024;
    const script = `const t=performance.now();await import(${JSON.stringify(outfile)});console.log(performance.now()-t)`;
    const times: number[] = [];
    for (let k = 0; k < 3; k++) {
      const p = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'ERROR' } });
      times.push(Number(p.stdout.trim().split('\n').pop()));
    }
    console.log(`  ${size.toFixed(0).padStart(7)}  ${pct(times, 50).toFixed(0).padStart(9)}  ${e.name}`);
  }
  rmSync(join(repo, '.bench'), { recursive: true, force: true });
}

await initThroughput();
await bundles();
