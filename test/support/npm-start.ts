import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { launchRuntime } from './launch.ts';

/** The DATA_DIRs made here (no dataDir given): removed after the test file, whose tests may restart on one. */
const ownDirs: string[] = [];
afterAll(() => {
  for (const dir of ownDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * The real `npm start`, as a newcomer runs it, on PORT=0 with the given DATA_DIR, launched by
 * test/support/launch.ts. Resolves once it prints `listening on …`. `stop()` sends SIGTERM to its
 * whole process group and waits until nothing runs on the data directory.
 */
export async function npmStart(dataDir?: string, env: Record<string, string> = {}) {
  if (!dataDir) ownDirs.push((dataDir = mkdtempSync(join(tmpdir(), 'shroud-e2e-'))));
  const dir = dataDir;
  const run = await launchRuntime(
    'npm',
    ['start', '--silent'],
    { ...process.env, PORT: '0', DATA_DIR: dir, POWERTOOLS_LOG_LEVEL: 'ERROR', ...env },
    'npm start',
  );
  return {
    url: run.url,
    dataDir: dir,
    pgid: run.pgid,
    output: run.output,
    async stop() {
      await run.stop();
      // npm, tsx, node and DynamoDB Local (java) all end: nothing keeps running on the data dir.
      for (let i = 0; i < 150 && processesUsing(dir).length; i++) await new Promise((ok) => setTimeout(ok, 100));
    },
    /** Processes still running whose command line names this runtime's DATA_DIR. */
    leftovers: () => processesUsing(dir),
  };
}

function processesUsing(dir: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(dir) && !l.includes('ps -eo'));
}
