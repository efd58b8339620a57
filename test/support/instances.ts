import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrap } from '#lib/local/bootstrap.ts';
import { startDynamoLocal } from '#lib/local/dynamodb-local.ts';
import { startS3Local } from '#lib/local/s3-local.ts';
import { launchRuntime } from './launch.ts';
import { HttpClient } from './runtime.ts';

/**
 * One DynamoDB Local and one local S3 in this test process, shared by runtime processes started
 * with `startInstance` (as Lambda instances share one table and one bucket). The table and bucket
 * exist before any instance starts, and this process's own `#lib` modules talk to the same ones
 * (so a test can make a session or look at the data directly).
 */
export async function startSharedServices() {
  const dir = mkdtempSync(join(tmpdir(), 'shroud-shared-'));
  const [dynamo, s3] = await Promise.all([startDynamoLocal(join(dir, 'dynamodb')), startS3Local(join(dir, 's3'))]);
  const env = {
    STAGE: 'local',
    TABLE_NAME: 'shroud-shared',
    BUCKET_NAME: 'shroud-shared-blocks',
    LOCAL_DYNAMODB_ENDPOINT: dynamo.endpoint,
    LOCAL_S3_ENDPOINT: s3.endpoint,
    DATA_DIR: join(dir, 'instances'),
  };
  await bootstrap({ dynamoEndpoint: dynamo.endpoint, s3Endpoint: s3.endpoint, tableName: env.TABLE_NAME, bucketName: env.BUCKET_NAME });
  // This process's repositories (sessions, files) on the same table and bucket; set before they load.
  Object.assign(process.env, {
    STAGE: env.STAGE,
    TABLE_NAME: env.TABLE_NAME,
    BUCKET_NAME: env.BUCKET_NAME,
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    S3_ENDPOINT: s3.endpoint,
    COOKIE_SECURE: 'false',
    DATA_DIR: env.DATA_DIR,
  });
  return {
    env,
    async stop() {
      await Promise.all([dynamo.stop(), s3.stop()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type SharedServices = Awaited<ReturnType<typeof startSharedServices>>;

/**
 * A runtime process (functions/local.ts, what `npm start` runs) on the shared services, on a free
 * port. `kill()` is SIGKILL, no goodbye: what a Lambda instance dying mid-request looks like.
 */
export async function startInstance(shared: SharedServices, env: Record<string, string> = {}) {
  // Not this process's own endpoints and origins: the instance derives its own from the shared ones.
  const { DYNAMODB_ENDPOINT, S3_ENDPOINT, CORS_ORIGINS, PUBLIC_BASE_URL, ...inherited } = process.env;
  const run = await launchRuntime(
    process.execPath,
    ['--import', 'tsx', 'functions/local.ts'],
    { ...inherited, ...shared.env, PORT: '0', POWERTOOLS_LOG_LEVEL: 'CRITICAL', ...env },
    'the runtime',
  );
  const { url } = run;
  return {
    url,
    pid: run.pgid,
    output: run.output,
    client: () => new HttpClient(url),
    /** A client with a session for `userId` (made in this process, on the shared table). */
    async signedIn(userId: string) {
      const { createSession } = await import('#lib/data/sessions.ts');
      const { id } = await createSession(userId, 'password');
      const client = new HttpClient(url);
      client.jar.set('shroud_session', id);
      return client;
    },
    kill: run.kill,
    stop: () => run.stop(10_000),
  };
}

export type Instance = Awaited<ReturnType<typeof startInstance>>;
