/**
 * Compression through the API against the same transactions sent straight to the runtime
 * (`npm run bench -- compression`): the signing path of _signing-path.ts (issue 39's rows, also
 * printed by hotpath.ts) plus the compressed-balance read, as one table. The ratio of the medians
 * is the API's overhead. Prints numbers, asserts nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printSigningRows, signingPath } from './_signing-path.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const dir = mkdtempSync(join(tmpdir(), 'shroud-bench-compression-'));
process.env.POWERTOOLS_LOG_LEVEL = 'CRITICAL';

const { startRuntime } = await import('#lib/local/runtime.ts');
const rt = await startRuntime({
  port: 0,
  dataDir: join(dir, 'data'),
  env: { RATE_LIMIT_MULTIPLIER: '100' },
  routes: (await import('#functions/routes.ts')).routes,
  jobs: (await import('#functions/jobs.ts')).jobs,
});

try {
  const { rows, plain, balance } = await signingPath(rt.url, ROUNDS);
  const table = [...rows.map((r) => ({ operation: r.name, api: r.api, direct: r.direct })), { operation: 'compressed-balance', ...balance }];
  console.table(
    table.map((r) => ({
      operation: r.operation,
      'API median ms': r.api.median.toFixed(1),
      'API p95 ms': r.api.p95.toFixed(1),
      'in-process median ms': r.direct.median.toFixed(1),
      'in-process p95 ms': r.direct.p95.toFixed(1),
      ratio: (r.api.median / r.direct.median).toFixed(2),
    })),
  );
  printSigningRows(rows, plain);
} finally {
  await rt.stop();
  rmSync(dir, { recursive: true, force: true });
}
