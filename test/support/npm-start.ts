import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { launchNpmStart } from './launch.ts';

/** The DATA_DIRs made here (no dataDir given): removed after the test file, whose tests may restart on one. */
const ownDirs: string[] = [];
afterAll(() => {
  for (const dir of ownDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * This test file's own `npm start` (test/support/launch.ts launchNpmStart), on PORT=0 with the
 * given DATA_DIR: for a test that stops, restarts or configures it. One that only talks to it takes
 * the run's shared one (`sharedNpmStart`).
 */
export async function npmStart(dataDir?: string, env: Record<string, string> = {}) {
  if (!dataDir) ownDirs.push((dataDir = mkdtempSync(join(tmpdir(), 'shroud-e2e-'))));
  return launchNpmStart(dataDir, process.env, env);
}

/**
 * The run's one `npm start` (test/support/shared-npm-start.ts): started by the first file that asks,
 * shared by every file that only sends it requests (each with users of its own), and stopped after
 * the run, which then fails if any of its processes is left. Not to be stopped or restarted here.
 */
export async function sharedNpmStart(): Promise<{ url: string; pgid: number; dataDir: string }> {
  const broker = process.env.SHROUD_TEST_NPM_START;
  if (!broker) throw new Error('no shared npm start: test/support/shared-npm-start.ts is not among the globalSetup files');
  const res = await fetch(broker);
  const body = (await res.json()) as { url: string; pgid: number; dataDir: string } | { error: string };
  if ('error' in body) throw new Error(`the shared npm start did not start: ${body.error}`);
  return body;
}
