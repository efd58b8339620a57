/**
 * The API served from what `cdk deploy` ships (`npm run start:assets`, cdk/start-assets.ts): the
 * gateway emulator (lib/local/gateway.ts) in front of the synthesized functions, each run from its
 * own asset in its own sandboxed processes (cdk/asset-host.ts), with the environment its template
 * gives it — references resolved to DynamoDB Local, the local S3 and Moto (cdk/local-aws.ts) — the
 * circuit layer at the sandbox's /opt, the streaming routes through their function URL's function
 * (the `awslambda` global's response stream), the EventBridge rules run on their rates and the SQS
 * event source mappings polled (cdk/asset-wiring.ts, cdk/sqs-poller.ts).
 */
import { createServer, type Server } from 'node:http';
import { mkdirSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { join, resolve } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { routes } from '../functions/routes.ts';
import { gatewayPath } from '../lib/http/router.ts';
import { startDynamoLocal } from '../lib/local/dynamodb-local.ts';
import { startMoto } from '../lib/local/moto.ts';
import { ensureLocalBucket, startS3Local } from '../lib/local/s3-local.ts';
import { startLocalPinata } from '../lib/local/pinata.ts';
import { AssetHost } from './asset-host.ts';
import { readWiring } from './asset-wiring.ts';
import { environmentOf, nodeFunctions, readAssembly, type SynthesizedFunction } from './cloud-assembly.ts';
import { REHEARSAL_BUCKETS, REHEARSAL_HOSTS, REHEARSAL_SECRETS } from './rehearsal.ts';
import { createLocalAws, localUrls, MOTO_CREDENTIALS, REGION } from './local-aws.ts';
import { createSandbox, runtimeEnvironment } from './lambda-sandbox.ts';
import { startSqsPoller } from './sqs-poller.ts';

export interface AssetModeOptions {
  /** The cloud assembly (cdk.out). */
  outdir: string;
  /** 0: a free port. */
  port?: number;
  dataDir: string;
  /** One line per function log line and per event; default: stderr. */
  log?: (line: string) => void;
  /** Run the EventBridge rules (default true). */
  schedules?: boolean;
  /** Plain settings for every function, as `-c functionEnvironment=…` would put in the template (the test run's rate limits). */
  functionEnvironment?: Record<string, string>;
}

export interface AssetMode {
  url: string;
  stage: string;
  template: string;
  functions: number;
  summary: string[];
  /** Invokes a function by name as its trigger would (a scheduled event, an SQS batch): tests. */
  invoke(name: string, event: unknown): Promise<unknown>;
  stop(): Promise<void>;
}

export async function startAssetMode(opts: AssetModeOptions): Promise<AssetMode> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => {});
    stops.length = 0;
  };
  try {
    const scopes = readAssembly(opts.outdir);
    const root = scopes[0];
    if (!root) throw new Error(`${opts.outdir}: no stack in the assembly (run npm run synth)`);
    const stage = root.name.replace(/^Shroud-/, '');
    mkdirSync(opts.dataDir, { recursive: true });
    const [dynamo, s3, moto] = await Promise.all([startDynamoLocal(resolve(opts.dataDir, 'dynamodb')), startS3Local(resolve(opts.dataDir, 's3')), startMoto()]);
    stops.push(dynamo.stop, s3.stop, moto.stop);

    const server: Server = createServer();
    server.requestTimeout = 0;
    await new Promise<void>((ok, fail) => {
      server.once('error', fail);
      server.listen(opts.port ?? 0, '127.0.0.1', () => ok());
    });
    stops.push(
      () =>
        new Promise<void>((ok) => {
          server.closeAllConnections();
          server.close(() => ok());
        }),
    );
    const url = `http://localhost:${(server.address() as { port: number }).port}`;

    const local = await createLocalAws(scopes, { dynamo: dynamo.endpoint, s3: s3.endpoint, moto: moto.endpoint, url });
    const wiring = readWiring(scopes, local.resolver);
    // The SDK's endpoints: the project's own settings for DynamoDB, S3 and KMS (lib/config.ts,
    // lib/wallets/config.ts), the SDK's standard variables for the clients that have none.
    const endpoints = {
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      S3_ENDPOINT: s3.endpoint,
      KMS_ENDPOINT: moto.endpoint,
      AWS_ENDPOINT_URL_KMS: moto.endpoint,
      AWS_ENDPOINT_URL_SQS: moto.endpoint,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: moto.endpoint,
      AWS_ENDPOINT_URL_EVENTBRIDGE: moto.endpoint,
    };
    const sandbox = createSandbox();
    stops.push(async () => sandbox.remove());
    const host = new AssetHost(sandbox, { onLog: (fn, line) => log(`[${fn}] ${line}`) });
    stops.push(() => host.stop());
    const fns = nodeFunctions(opts.outdir, scopes);
    const rehearsal = await startRehearsalServices(fns, { dataDir: opts.dataDir, moto: moto.endpoint, s3: s3.endpoint });
    stops.push(rehearsal.stop);
    for (const fn of fns) {
      const templateEnv = Object.fromEntries(Object.entries(environmentOf(fn, local.resolver)).map(([k, v]) => [k, rehearsal.localize(localUrls(v, url))]));
      host.add(fn, (dirs) => runtimeEnvironment(fn, { ...opts.functionEnvironment, ...templateEnv }, dirs, endpoints));
    }

    // Every route of the route table must be in the template: a stale assembly is refused.
    const missing = routes.filter((r) => !wiring.routes.has(`${r.method} ${gatewayPath(r.path)}`)).map((r) => `${r.method} ${r.path}`);
    if (missing.length) throw new Error(`${opts.outdir} lacks routes of functions/routes.ts (synthesize again): ${missing.slice(0, 5).join(', ')}`);
    const fallback = wiring.routes.get('$default');
    if (!fallback) throw new Error(`${opts.outdir}: no $default route`);
    const { gatewayListener } = await import('../lib/local/gateway.ts');
    server.on(
      'request',
      await gatewayListener(routes, {
        integration: (route, event: APIGatewayProxyEventV2) => {
          const fn = route ? wiring.routes.get(`${route.method} ${gatewayPath(route.path)}`)! : fallback;
          // A streaming route's answer comes from its function URL (cdk/ai.ts); here at the route's own path.
          const stream = route?.stream ? wiring.streams.get(fn) : undefined;
          return host.invoke(stream ?? fn, stream ? asFunctionUrlEvent(event) : event);
        },
      }),
    );

    const invokeBuffered = async (name: string, event: unknown) => {
      const out = await host.invoke(name, event);
      if (out.kind !== 'result') throw new Error(`${name} answered with a stream`);
      return out.result;
    };
    if (opts.schedules !== false) {
      for (const s of wiring.schedules) {
        let running: Promise<unknown> | undefined;
        const timer = setInterval(() => {
          running ??= invokeBuffered(s.fn, scheduledEvent(s.rule))
            .catch((e: Error) => log(`[${s.fn}] scheduled run failed: ${e.message}`))
            .finally(() => (running = undefined));
        }, s.everyMs);
        timer.unref();
        stops.push(async () => {
          clearInterval(timer);
          await running;
        });
      }
    }
    for (const q of wiring.queues) {
      const queue = [...local.queues.values()].find((x) => x.arn === q.queueArn);
      if (!queue) throw new Error(`event source ${q.queueArn}: not a queue of the stack`);
      stops.push(
        startSqsPoller({
          moto: moto.endpoint,
          queueUrl: queue.url,
          mapping: q,
          invoke: (e) => invokeBuffered(q.fn, e),
          onError: (e) => log(`[${q.fn}] SQS batch failed: ${e.message}`),
        }),
      );
    }
    const summary = [
      ...local.summary,
      `Moto on ${moto.endpoint}`,
      ...rehearsal.summary,
      ...wiring.schedules.map((s) => `schedule ${s.expression}: ${s.fn}`),
      ...wiring.queues.map((q) => `SQS ${q.queueArn} → ${q.fn} (batch ${q.batchSize}${q.reportBatchItemFailures ? ', partial failures' : ''})`),
    ];
    return { url, stage, template: root.file, functions: fns.length, summary, invoke: invokeBuffered, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * The loopback stand-ins of the rehearsal stage's outside services (cdk/rehearsal.ts), each
 * started when a function's environment names its placeholder host: chain A's JSON-RPC front over
 * the embedded chain (its state under `dataDir`), a loopback Pinata, and the local S3 for the S3
 * replica targets, with the targets' secrets made on Moto under the names their ARNs give.
 * `localize` points a resolved value at them.
 */
async function startRehearsalServices(fns: SynthesizedFunction[], at: { dataDir: string; moto: string; s3: string }) {
  const named = (host: string) => fns.some((fn) => JSON.stringify(fn.environment).includes(host));
  const hosts = new Map<string, string>();
  const stops: (() => Promise<void>)[] = [];
  const summary: string[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => {});
  };
  const secret = async (name: string, value: string) => {
    const sm = new SecretsManagerClient({ region: REGION, endpoint: at.moto, credentials: MOTO_CREDENTIALS });
    const made = await sm.send(new CreateSecretCommand({ Name: name, SecretString: value }));
    sm.destroy();
    summary.push(`secret ${name}: ${made.ARN}`);
  };
  try {
    if (named(REHEARSAL_HOSTS.chainA)) {
      const [{ LocalChainA }, { startChainARpc }] = await Promise.all([import('../lib/local/chain-a/chain.ts'), import('../lib/local/chain-a/json-rpc.ts')]);
      const chain = await LocalChainA.open(at.dataDir);
      stops.push(() => chain.close());
      const front = await startChainARpc(chain);
      stops.push(front.stop);
      hosts.set(`http://${REHEARSAL_HOSTS.chainA}`, front.url);
      summary.push(`chain A (the embedded chain over JSON-RPC) on ${front.url}`);
    }
    if (named(REHEARSAL_HOSTS.pinata)) {
      const jwt = randomBytes(24).toString('base64url');
      const pinata = await startLocalPinata(jwt);
      stops.push(() => pinata.stop());
      await secret(REHEARSAL_SECRETS.pinataJwt, jwt);
      hosts.set(`http://${REHEARSAL_HOSTS.pinata}`, pinata.base);
      summary.push(`Pinata (loopback) on ${pinata.base}`);
    }
    if (named(REHEARSAL_HOSTS.s3)) {
      // The local S3's own account (lib/local/s3-local.ts), as an S3-compatible service's keys.
      await secret(REHEARSAL_SECRETS.s3Keys, JSON.stringify({ accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }));
      for (const b of REHEARSAL_BUCKETS) await ensureLocalBucket(at.s3, b);
      hosts.set(`http://${REHEARSAL_HOSTS.s3}`, at.s3);
      summary.push(`replica buckets ${REHEARSAL_BUCKETS.join(', ')} on ${at.s3}`);
    }
  } catch (e) {
    await stop();
    throw e;
  }
  const localize = (value: string) => [...hosts].reduce((v, [from, to]) => v.replaceAll(from, to), value);
  return { localize, summary, stop };
}

/** A function URL's event: payload 2.0 with the URL's request context (no route key, `$default`). */
function asFunctionUrlEvent(event: APIGatewayProxyEventV2): APIGatewayProxyEventV2 {
  return { ...event, routeKey: '$default', requestContext: { ...event.requestContext, routeKey: '$default', domainPrefix: 'local-function-url' } };
}

/** The event an EventBridge schedule delivers. */
function scheduledEvent(rule: string) {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: new Date().toISOString(),
    region: REGION,
    resources: [`arn:aws:events:${REGION}:000000000000:rule/${rule.split('/').pop()}`],
    detail: {},
  };
}

export const defaultDataDir = (root: string) => join(root, '.data', 'assets');
