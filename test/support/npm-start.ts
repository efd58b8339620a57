import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
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
 * The run's `npm start` (test/support/shared-npm-start.ts), shared by the files that only send it
 * requests, each with users of its own: started by the first file that asks, held while this test
 * file's process keeps the connection that asked (unref'd, it closes when the process ends),
 * stopped once no file has held it for a while, and checked then for processes left. Not to be
 * stopped or restarted here.
 */
export async function sharedNpmStart(): Promise<{ url: string; pgid: number; dataDir: string }> {
  const port = Number(process.env.SHROUD_TEST_NPM_START);
  if (!port) throw new Error('no shared npm start: test/support/shared-npm-start.ts is not among the globalSetup files');
  const lease = connect(port, '127.0.0.1');
  const line = await new Promise<string>((resolve, reject) => {
    let got = '';
    lease.on('data', (d) => {
      got += d.toString();
      if (got.includes('\n')) resolve(got.slice(0, got.indexOf('\n')));
    });
    lease.on('error', reject);
    lease.once('close', () => reject(new Error('the shared npm start closed the connection before answering')));
  });
  lease.unref();
  const body = JSON.parse(line) as { url: string; pgid: number; dataDir: string } | { error: string };
  if ('error' in body) throw new Error(`the shared npm start did not start: ${body.error}`);
  return body;
}
