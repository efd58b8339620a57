import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `npm run bench`: every benchmark script in this folder, one fresh process each, in turn.
 * They print numbers and assert nothing. `npm run bench -- storage` runs the ones whose name matches.
 */
const here = import.meta.dirname;
const filter = process.argv[2];
const scripts = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .filter((f) => !filter || f.includes(filter))
  .sort();
let failed = 0;
for (const script of scripts) {
  console.log(`\n=== ${script} ===`);
  const out = spawnSync(process.execPath, ['--import', 'tsx', join(here, script)], { stdio: 'inherit', env: process.env });
  if (out.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
