import type { Route } from '#lib/http/route.ts';
import { isScheduled, type Job } from '#lib/job.ts';
import { createServer, type Server } from 'node:http';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { circuitsDir } from '#lib/zk/circuits.ts';
import { assertTrustedSetup } from '#lib/zk/trusted-setup.ts';
import { installEmbeddedAdapters } from './adapters.ts';
import { bootstrap } from './bootstrap.ts';
import { startDynamoLocal, type DynamoLocal } from './dynamodb-local.ts';
import type { EthereumL1 } from './ethereum-l1.ts';
import { LOCAL_PROVIDERS, startLocalOAuthProvider } from './oauth-provider.ts';
import { ensureLocalBucket, startS3Local, type S3Local } from './s3-local.ts';

export interface RuntimeOptions {
  /** The route table to serve (`functions/routes.ts`). */
  routes: readonly Route[];
  /** The job table (`functions/jobs.ts`): every scheduled row runs on its period, as on AWS. */
  jobs: readonly Job[];
  /** 0 picks a free port. */
  port?: number;
  dataDir?: string;
  /** Extra environment for the handlers (set before any handler module loads). */
  env?: Record<string, string>;
  /**
   * Use this DynamoDB and S3 instead of starting our own: a second instance on shared data, as two
   * Lambda instances share one table and one bucket. `npm start` reads it from LOCAL_DYNAMODB_ENDPOINT
   * and LOCAL_S3_ENDPOINT. Such a runtime has no `services` of its own.
   */
  external?: ExternalServices;
  /**
   * Use this DynamoDB and start the rest: the test suite's one DynamoDB Local, which every test
   * file shares on a table of its own (test/support/shared-dynamo.ts). `services.dynamo` is then absent.
   */
  dynamoEndpoint?: string;
  /**
   * The embedded Ethereum L1 (lib/local/ethereum-l1.ts) for the StarkGate route: on unless
   * LOCAL_L1=0, and off when ETHEREUM_RPC_URL names another L1 or with `external`.
   */
  l1?: boolean;
  /** A scheduled row's local period in ms by job name, in place of the table's (a test runs the bridge relayer faster). */
  jobPeriodsMs?: Readonly<Record<string, number>>;
}

export interface ExternalServices {
  dynamoEndpoint: string;
  s3Endpoint: string;
}

export interface Runtime {
  url: string;
  port: number;
  dataDir: string;
  /** The embedded services, for fault tests (kill DynamoDB Local, restart S3); with `external`, none. */
  services: { dynamo?: DynamoLocal; s3: S3Local; replicaTargets: S3Local[]; l1?: EthereumL1 };
  /** Waits for passes of a scheduled job (ScheduledJobs.passes). */
  jobPasses: ScheduledJobs['passes'];
  stop(): Promise<void>;
}

/** A runtime on `external` services: it owns none (see RuntimeOptions.external). */
export type SharingRuntime = Omit<Runtime, 'services' | 'jobPasses'>;

/**
 * The embedded runtime hosts every function in one isolate, a live heap of ~100 MB where a Lambda
 * has its one function's. V8 sizes the next full GC's limit from its speeds, often at 1.1-1.2x
 * the live heap, and then starts marking after a few MB: a 100 MB upload ran 5-8 full
 * mark-compacts of that heap (0.3-0.9 s of the main thread). Limits at 1.5x the live heap take
 * that away for a bounded cost (the heap holds up to half again before it is collected). A V8
 * flag read at each GC, set once for this process; Lambda's functions are untouched.
 */
function useRuntimeHeapGrowth(): void {
  setFlagsFromString('--heap-growing-percent=50');
}

/**
 * The whole service on one machine: DynamoDB Local and a local S3 on loopback with their data
 * under `dataDir`, the table and bucket created when missing, and the API Gateway emulator in
 * front of the very handlers that run on Lambda.
 */
export function startRuntime(opts: RuntimeOptions & { external?: undefined }): Promise<Runtime>;
export function startRuntime(opts: RuntimeOptions): Promise<Runtime | SharingRuntime>;
export async function startRuntime(opts: RuntimeOptions): Promise<Runtime | SharingRuntime> {
  // A runtime pointed at mainnet (or marked production) refuses development keys before it starts anything.
  assertTrustedSetup(circuitsDir(), process.env);
  useRuntimeHeapGrowth();
  // The emulators behind the chain ports (the handlers' CHAIN_A_ADAPTER / CHAINB_ADAPTER = local).
  installEmbeddedAdapters();
  const dataDir = resolve(opts.dataDir ?? process.env.DATA_DIR ?? '.data');
  mkdirSync(dataDir, { recursive: true });
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => {});
    stops.length = 0;
  };
  try {
    // Our own L1 unless the operator named another (a value we set earlier is ours to replace);
    // it starts alongside DynamoDB Local and S3 (its stop is registered first, so a failed start closes it too).
    const wantL1 = (opts.l1 ?? process.env.LOCAL_L1 !== '0') && !opts.external && (!process.env.ETHEREUM_RPC_URL || process.env.ETHEREUM_LOCAL === '1');
    const l1Start = wantL1 ? import('./ethereum-l1.ts').then((m) => m.startEthereumL1(dataDir)) : Promise.resolve(undefined);
    l1Start.catch(() => {}); // handled: awaited below, where a failure stops the start
    stops.push(async () => (await l1Start.catch(() => undefined))?.stop());
    const [dynamo, s3] = opts.external
      ? [{ endpoint: opts.external.dynamoEndpoint }, { endpoint: opts.external.s3Endpoint }]
      : await Promise.all([
          opts.dynamoEndpoint ? { endpoint: opts.dynamoEndpoint } : startDynamoLocal(resolve(dataDir, 'dynamodb')),
          startS3Local(resolve(dataDir, 's3')),
        ]);
    const ownDynamo = 'stop' in dynamo ? dynamo : undefined;
    if (!opts.external) stops.push(...(ownDynamo ? [ownDynamo.stop] : []), (s3 as S3Local).stop);
    const replicaTargets = opts.external ? [] : await startReplicaTargets(dataDir);
    for (const t of replicaTargets) stops.push(t.server.stop);
    const l1 = await l1Start;

    const server: Server = createServer();
    server.requestTimeout = 0; // 100 MB uploads over slow links are allowed to take their time
    await new Promise<void>((ok, fail) => {
      server.once('error', fail);
      server.listen(opts.port ?? 3000, '127.0.0.1', () => ok());
    });
    stops.push(
      () =>
        new Promise<void>((ok) => {
          server.closeAllConnections();
          server.close(() => ok());
        }),
    );
    const port = (server.address() as { port: number }).port;
    const url = `http://localhost:${port}`;

    // Social login without internet: the providers that have no configuration of their own sign
    // in through a local OpenID provider on loopback (lib/local/oauth-provider.ts).
    const given = { ...process.env, ...opts.env };
    const unconfigured = LOCAL_PROVIDERS.filter((p) => !given[`OAUTH_${p.toUpperCase()}_CLIENT_ID`]);
    let oauthEnv: Record<string, string> = {};
    if (unconfigured.length) {
      const provider = await startLocalOAuthProvider();
      stops.push(provider.stop);
      oauthEnv = provider.env(unconfigured);
    }

    // Configuration is read at cold start: set it before the first handler module loads.
    Object.assign(process.env, {
      ...oauthEnv,
      STAGE: process.env.STAGE ?? 'local',
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      S3_ENDPOINT: s3.endpoint,
      COOKIE_SECURE: 'false',
      PUBLIC_BASE_URL: url,
      CORS_ORIGINS: process.env.CORS_ORIGINS ?? url,
      DATA_DIR: dataDir,
      // Our own targets unless the operator named others (a value we set earlier is ours to replace).
      ...(replicaTargets.length && (!process.env.REPLICA_TARGETS || process.env.REPLICA_TARGETS_LOCAL === '1')
        ? { REPLICA_TARGETS: JSON.stringify(replicaTargets.map((t) => t.config)), REPLICA_TARGETS_LOCAL: '1' }
        : {}),
      // The StarkGate watcher reads the embedded L1, which mines a block per transaction.
      ...(l1 ? { ETHEREUM_RPC_URL: l1.url, ETHEREUM_LOCAL: '1', ETHEREUM_CONFIRMATIONS: '1' } : {}),
      ...opts.env,
    });
    const { config } = await import('#lib/config.ts');
    await bootstrap({ dynamoEndpoint: dynamo.endpoint, s3Endpoint: s3.endpoint, tableName: config.TABLE_NAME, bucketName: config.BUCKET_NAME });
    const { gatewayListener } = await import('./gateway.ts');
    server.on('request', await gatewayListener(opts.routes));
    const scheduled = startScheduledJobs(opts.jobs, opts.jobPeriodsMs);
    stops.push(scheduled.stop);
    stops.push(...(await startReplicaWorker({ ownsServices: !opts.external })));
    if (opts.external) return { url, port, dataDir, stop };
    const services = {
      ...(ownDynamo ? { dynamo: ownDynamo } : {}),
      s3: s3 as S3Local,
      replicaTargets: replicaTargets.map((t) => t.server),
      ...(l1 ? { l1 } : {}),
    };
    return { url, port, dataDir, services, stop, jobPasses: scheduled.passes };
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * `pass` every `intervalMs`, as an EventBridge rule runs the same code on AWS: one pass at a time,
 * unref'd so it never keeps the process alive, a failure logged and the next pass tried; the stop
 * waits for a running pass (the services it talks to stop next). The job's module loads at its
 * first pass, not at start (chain A's SDKs are heavy).
 */
function every(name: string, intervalMs: number, pass: () => Promise<unknown>, ended: () => void): () => Promise<void> {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    running ??= pass()
      .catch(async (e: unknown) => (await import('#lib/log.ts')).logger.warn(`${name} failed`, { error: e as Error }))
      .finally(() => {
        running = undefined;
        ended();
      });
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/** The scheduled jobs running in process. */
export interface ScheduledJobs {
  stop(): Promise<void>;
  /**
   * Resolves once `count` passes of job `name` that began after the call have ended (failed
   * ones too): a test that waits on the bridge relayer waits for its passes, not for a time.
   */
  passes(name: string, count?: number): Promise<void>;
}

const repoRoot = join(import.meta.dirname, '..', '..');

/**
 * Every scheduled row of the job table, in process: the row's own handler (the function the
 * EventBridge rule invokes on AWS) on the row's period, or on `local.everyMs` where the row says
 * why the local runtime differs (the bridge relayer, which plays Hyperlane's relayer here).
 */
export function startScheduledJobs(jobs: readonly Job[], periodsMs: Readonly<Record<string, number>> = {}): ScheduledJobs {
  type Waiting = { until: number; done: () => void; stopped: (e: Error) => void };
  const counts = new Map<string, { ended: number; running: boolean; waiting: Waiting[] }>();
  const stops = jobs.filter(isScheduled).map((job) => {
    let handler: Promise<() => Promise<unknown>> | undefined;
    const load = () =>
      (handler ??= import(pathToFileURL(join(repoRoot, job.handler)).href).then((m: { handler?: () => Promise<unknown> }) => {
        if (typeof m.handler !== 'function') throw new Error(`${job.handler} exports no handler`);
        return m.handler;
      }));
    const count = { ended: 0, running: false, waiting: [] as Waiting[] };
    counts.set(job.name, count);
    const pass = async () => {
      count.running = true;
      return (await load())();
    };
    const ended = () => {
      count.running = false;
      count.ended++;
      count.waiting = count.waiting.filter((w) => (w.until <= count.ended ? (w.done(), false) : true));
    };
    return every(job.name, periodsMs[job.name] ?? localPeriodMs(job), pass, ended);
  });
  return {
    stop: async () => {
      await Promise.all(stops.map((stop) => stop()));
      // No pass will come: a test still waiting for one fails now rather than at its timeout.
      for (const [name, count] of counts) for (const w of count.waiting.splice(0)) w.stopped(new Error(`job ${name} stopped before its passes`));
    },
    passes: (name, n = 1) => {
      const count = counts.get(name);
      if (!count) return Promise.reject(new Error(`job ${name} does not run in this runtime`));
      // A pass running now began before the call: it ends first and does not count.
      const until = count.ended + (count.running ? 1 : 0) + n;
      return new Promise<void>((done, stopped) => count.waiting.push({ until, done, stopped }));
    },
  };
}

/** A scheduled row's period in this runtime. */
export const localPeriodMs = (job: Job): number => job.local?.everyMs ?? (isScheduled(job) ? job.trigger.everyMinutes * 60_000 : NaN);

/**
 * The replicated pinning's storage targets: three local S3 servers, each with its own data
 * directory (`<dataDir>/replica-<n>`), so that one can fail (be taken down, lose or corrupt a
 * file) without the others. On AWS: REPLICA_TARGETS names buckets in other regions or services.
 */
async function startReplicaTargets(dataDir: string) {
  return Promise.all(
    [1, 2, 3].map(async (n) => {
      const server = await startS3Local(resolve(dataDir, `replica-${n}`));
      const config = { name: `local-${n}`, endpoint: server.endpoint, bucket: `shroud-replica-${n}`, region: 'us-east-1' };
      await ensureLocalBucket(server.endpoint, config.bucket);
      return { server, config };
    }),
  );
}

/**
 * The replica worker's queue consumer (SQS on AWS, cdk/replicas.ts), in process; the hourly audit
 * is a scheduled row of the job table.
 */
async function startReplicaWorker(opts: { ownsServices: boolean }): Promise<(() => Promise<void>)[]> {
  const { startLocalReplicaQueue } = await import('#lib/storage/replica-queue.ts');
  const { handleReplicaJob, requeueUnfinishedJobs } = await import('#lib/storage/replica-worker.ts');
  const { storageConfig } = await import('#lib/storage/config.ts');
  const stopQueue = startLocalReplicaQueue(handleReplicaJob);
  // The jobs the last run's in-process queue held when it stopped. Only a runtime that owns its
  // table and queue: one on another's services (`external`) would queue the copies that runtime is
  // running, and with SQS configured the jobs were never in this process (SQS keeps them).
  const requeue = opts.ownsServices && !storageConfig.REPLICA_QUEUE_URL;
  const requeued = (requeue ? requeueUnfinishedJobs() : Promise.resolve()).catch(async (e: unknown) =>
    (await import('#lib/log.ts')).logger.warn('replica jobs of the last run not queued again', { error: e as Error }),
  );
  return [
    async () => {
      await requeued;
      await stopQueue();
    },
  ];
}
