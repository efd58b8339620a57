import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropTable } from '#lib/local/bootstrap.ts';
import { startRuntime, type Runtime } from '#lib/local/runtime.ts';
import { routes } from '#functions/routes.ts';
import { jobs } from '#functions/jobs.ts';
import { checkResponse } from './response-check.ts';

/**
 * The local runtime in this test process (so a test can move the clock), on a free port, with a
 * throw-away DATA_DIR: real DynamoDB Local, real local S3, the real handlers over HTTP (and the
 * embedded Ethereum L1 when LOCAL_L1=1). Under vitest, DynamoDB Local is the run's shared one,
 * this file's own table on it (test/support/shared-dynamo.ts); `ownDynamo` starts one for this
 * runtime alone, for a test that kills it (and outside vitest, a bench, there is no shared one).
 */
export async function startTestRuntime(env: Record<string, string> = {}, dataDir?: string, opts: { ownDynamo?: boolean; withoutJobs?: string[] } = {}) {
  if (process.env.SHROUD_BASE_URL) return remoteRuntime(process.env.SHROUD_BASE_URL);
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'shroud-test-'));
  process.env.POWERTOOLS_LOG_LEVEL ??= 'CRITICAL';
  const shared = opts.ownDynamo ? undefined : process.env.SHROUD_TEST_DYNAMODB_ENDPOINT;
  // The embedded Ethereum L1 only for the tests that ask for it (LOCAL_L1=1): it adds seconds to a start.
  // withoutJobs: scheduled jobs a test drives itself (a chaos run's crashed pass would hold the timer, and the stop, forever).
  const own = jobs.filter((j) => !opts.withoutJobs?.includes(j.name));
  // The bridge relayer five times as often as `npm start` runs it: tests wait for its passes (`jobPasses`), not for a time.
  const jobPeriodsMs = { 'bridge-relayer': 200 };
  const runtime: Runtime = await startRuntime({
    port: 0,
    dataDir: dir,
    env,
    routes,
    jobs: own,
    l1: process.env.LOCAL_L1 === '1',
    dynamoEndpoint: shared,
    jobPeriodsMs,
  });
  return {
    ...runtime,
    client: () => new HttpClient(runtime.url),
    async stop(keepData = false) {
      await runtime.stop();
      if (keepData) return;
      if (!dataDir) rmSync(dir, { recursive: true, force: true });
      // This file's table on the shared DynamoDB Local goes with its runtime (a later start makes it again).
      if (shared) await dropTable(shared, (await import('#lib/config.ts')).config.TABLE_NAME);
    },
  };
}

export type TestRuntime = Awaited<ReturnType<typeof startTestRuntime>>;

/**
 * SHROUD_BASE_URL: the API another process serves (`npm run test:assets` starts `npm run
 * start:assets`, test/assets.config.ts). Its functions run elsewhere, with their own environment:
 * a test file that reads the embedded services or sets the runtime's environment cannot run so,
 * and the services getter says so instead of answering undefined.
 */
function remoteRuntime(url: string) {
  const rt = { url, port: Number(new URL(url).port), dataDir: '', client: () => new HttpClient(url), stop: async (_keepData = false) => {} };
  for (const what of ['services', 'jobPasses']) {
    Object.defineProperty(rt, what, {
      get() {
        throw new Error(`this test reads the embedded ${what}, which the API at SHROUD_BASE_URL (${url}) does not have`);
      },
    });
  }
  return rt as typeof rt & Pick<Runtime, 'services' | 'jobPasses'>;
}

/** fetch with a cookie jar, as a browser or terminal client keeps its session. */
export class HttpClient {
  readonly jar = new Map<string, string>();
  /** `checkResponses: false` only for a test that sends what no client would and reads what comes back raw. */
  constructor(
    readonly base: string,
    readonly checkResponses = true,
  ) {}

  async request(method: string, path: string, opts: { json?: unknown; body?: BodyInit; headers?: Record<string, string>; redirect?: RequestRedirect } = {}) {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (this.jar.size) headers.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    let body = opts.body;
    if (opts.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(opts.json);
    }
    const url = new URL(path, this.base);
    const res = await fetch(url, { method, headers, body, redirect: opts.redirect ?? 'manual' });
    applySetCookies(this.jar, res);
    const text = res.headers.get('content-type')?.includes('json') ? await res.text() : undefined;
    const json = text ? JSON.parse(text) : undefined;
    // Every answer against the OpenAPI document's schema for its route and status (fails the test on a mismatch).
    if (this.checkResponses) await checkResponse(method, url, res.status, res.headers.get('content-type'), json);
    return { status: res.status, headers: res.headers, json, res };
  }

  get = (path: string, opts?: Parameters<HttpClient['request']>[2]) => this.request('GET', path, opts);
  post = (path: string, json?: unknown, opts?: Parameters<HttpClient['request']>[2]) => this.request('POST', path, { ...opts, json });
  delete = (path: string, opts?: Parameters<HttpClient['request']>[2]) => this.request('DELETE', path, opts);
}

/** Keeps a response's cookies in `jar` as a browser would: set, replace, or drop when cleared. */
export function applySetCookies(jar: Map<string, string>, res: Response): void {
  for (const c of res.headers.getSetCookie()) {
    const [pair, ...attrs] = c.split(';');
    const i = pair!.indexOf('=');
    const name = pair!.slice(0, i).trim();
    const value = pair!.slice(i + 1).trim();
    if (value === '' || attrs.some((a) => /^\s*max-age=0\s*$/i.test(a))) jar.delete(name);
    else jar.set(name, value);
  }
}
