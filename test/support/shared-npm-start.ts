import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { launchNpmStart } from './launch.ts';

/**
 * vitest's globalSetup: one `npm start` for the run, for the test files that only send it requests
 * (test/support/npm-start.ts sharedNpmStart), instead of a boot each (npm, tsx, the runtime, its
 * own DynamoDB Local: some 7 CPU-seconds and 20-30 s of a worker's wall time). Started by the
 * first file that asks, so a run that needs none starts none: this process answers the workers on
 * a loopback port (SHROUD_TEST_NPM_START, in the environment they inherit) with the server's URL,
 * process group and DATA_DIR. After the run it is stopped, its DATA_DIR removed, and the run fails
 * if any of its processes is left.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let started: ReturnType<typeof launchNpmStart> | undefined;
  const start = () => {
    // The workers' environment (vitest.config.ts `env`: DynamoDB Local's JVM options), not a file's table.
    const env = { ...process.env, ...project.config.env };
    for (const k of Object.keys(env)) if (k.startsWith('SHROUD_TEST_') || k === 'TABLE_NAME') delete env[k];
    return launchNpmStart(mkdtempSync(join(tmpdir(), 'shroud-e2e-shared-')), env);
  };
  const broker = createServer((_req, res) => {
    (started ??= start()).then(
      (s) => res.end(JSON.stringify({ url: s.url, pgid: s.pgid, dataDir: s.dataDir })),
      (e: Error) => res.end(JSON.stringify({ error: e.message })),
    );
  });
  await new Promise<void>((ok) => broker.listen(0, '127.0.0.1', ok));
  process.env.SHROUD_TEST_NPM_START = `http://127.0.0.1:${(broker.address() as { port: number }).port}`;
  return async () => {
    broker.close();
    const server = await started?.catch(() => undefined);
    if (!server) return;
    await server.stop();
    const left = server.leftovers();
    rmSync(server.dataDir, { recursive: true, force: true });
    // vitest reports a teardown's throw and still exits 0: the run fails by its exit code instead.
    if (left.length) {
      console.error(`the shared npm start left processes running:\n${left.join('\n')}`);
      process.exitCode = 1;
    }
  };
}
