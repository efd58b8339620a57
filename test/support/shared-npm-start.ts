import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { launchNpmStart } from './launch.ts';

type NpmStart = Awaited<ReturnType<typeof launchNpmStart>>;

/**
 * Stopped after this long with no test file holding it. Idle, `npm start` still runs its jobs
 * (about 1.9 CPU-s a minute here); a boot costs what some five minutes of that cost. So files
 * that ask within two minutes of each other share one boot, and the rest of the run does not
 * carry an idle server.
 */
const IDLE_MS = 120_000;

/**
 * vitest's globalSetup: one `npm start` for the files that only send it requests
 * (test/support/npm-start.ts sharedNpmStart), instead of a boot each (npm, tsx, the runtime, its
 * own DynamoDB Local: some 8 CPU-seconds and 20-30 s of a worker's wall time). This process
 * answers the workers on a loopback port (SHROUD_TEST_NPM_START, in the environment they inherit):
 * each connection is a lease, held until the test file's process closes it or ends. The server
 * starts when the first file asks, so a run that needs none starts none. When no lease has been
 * held for IDLE_MS, it is stopped, and a later ask starts another. Each stop removes its DATA_DIR,
 * and the run fails if any of its processes is left.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let started: Promise<NpmStart> | undefined;
  let stopping: Promise<void> = Promise.resolve();
  let leases = 0;
  let idle: NodeJS.Timeout | undefined;
  let leftBehind = false;

  const start = async () => {
    await stopping;
    // The workers' environment (vitest.config.ts `env`: DynamoDB Local's JVM options), not a file's table.
    const env = { ...process.env, ...project.config.env };
    for (const k of Object.keys(env)) if (k.startsWith('SHROUD_TEST_') || k === 'TABLE_NAME') delete env[k];
    return launchNpmStart(mkdtempSync(join(tmpdir(), 'shroud-e2e-shared-')), env);
  };
  const stop = async (which: Promise<NpmStart>) => {
    const server = await which.catch(() => undefined);
    if (!server) return;
    await server.stop();
    const left = server.leftovers();
    rmSync(server.dataDir, { recursive: true, force: true });
    if (left.length) {
      console.error(`the shared npm start left processes running:\n${left.join('\n')}`);
      leftBehind = true;
    }
  };
  const release = () => {
    if (--leases > 0 || !started) return;
    const which = started;
    idle = setTimeout(() => {
      if (leases || started !== which) return;
      started = undefined;
      stopping = stop(which);
    }, IDLE_MS);
  };

  const broker = createServer((socket) => {
    leases++;
    clearTimeout(idle);
    socket.on('error', () => {}); // a file that ended mid-answer
    socket.once('close', release);
    (started ??= start()).then(
      (s) => socket.write(`${JSON.stringify({ url: s.url, pgid: s.pgid, dataDir: s.dataDir })}\n`),
      (e: Error) => socket.write(`${JSON.stringify({ error: e.message })}\n`),
    );
  });
  await new Promise<void>((ok) => broker.listen(0, '127.0.0.1', ok));
  process.env.SHROUD_TEST_NPM_START = String((broker.address() as { port: number }).port);

  return async () => {
    broker.close(); // no new leases; open ones end with their workers
    clearTimeout(idle);
    const last = started;
    started = undefined;
    await stopping;
    if (last) await stop(last);
    // vitest reports a teardown's throw and still exits 0: the run fails by its exit code instead.
    if (leftBehind) process.exitCode = 1;
  };
}
