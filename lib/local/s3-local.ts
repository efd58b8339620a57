import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface S3Local {
  endpoint: string;
  /** Stops the server and starts it again on the same port and data (fault tests). */
  restart(opts?: { downMs?: number }): Promise<void>;
  /** Takes the server down (a failure domain that is out) until `up()`; same port and data. */
  down(): Promise<void>;
  up(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The local S3 servers (npm `s3rver`) run on a worker thread of their own (s3-worker.cjs), not on
 * the API's event loop: s3rver's MD5 of every object, its disk writes and its HTTP parsing then
 * use the second core while the handlers import, hash and verify on the first. A thread, not a
 * child process, so that nothing can outlive the runtime's process (a crash takes the thread
 * with it) and the process's RSS still counts the store. One worker hosts every server of the
 * process (the bucket and the replica targets); it is unref'd while idle and ends when the last
 * server stops.
 */
const WORKER = new URL('./s3-worker.cjs', import.meta.url);

interface Reply {
  id: number;
  port?: number;
  error?: string;
}

interface Host {
  worker: Worker;
  calls: Map<number, { ok: (r: Reply) => void; fail: (e: Error) => void }>;
  servers: number;
  next: number;
}

let host: Host | undefined;

function hostOf(): Host {
  if (host) return host;
  const worker = new Worker(WORKER, {
    // The server's objects live for one request: a young generation of 4 MB (V8's default grows
    // to tens of MB under a 100 MB upload's churn) kept the first large upload's RSS 12 MB lower
    // here (66–71 MB against 80–81, `npm run bench -- storage`), at the same CPU and throughput.
    resourceLimits: { maxYoungGenerationSizeMb: 4 },
    workerData: { s3rver: createRequire(import.meta.url).resolve('s3rver') },
  });
  const h: Host = { worker, calls: new Map(), servers: 0, next: 0 };
  const failAll = (e: Error) => {
    if (host === h) host = undefined;
    for (const c of h.calls.values()) c.fail(e);
    h.calls.clear();
  };
  worker.on('message', (r: Reply) => {
    const call = h.calls.get(r.id);
    h.calls.delete(r.id);
    if (!h.calls.size) worker.unref();
    if (!call) return;
    if (r.error) call.fail(new Error(`local S3: ${r.error}`));
    else call.ok(r);
  });
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`local S3 worker exited (${code})`)));
  worker.unref();
  host = h;
  return h;
}

/** One request to the worker; the worker holds the process open only while a request is under way. */
function call(h: Host, message: { op: 'run' | 'close'; key: number; dir?: string; port?: number }): Promise<Reply> {
  const id = h.next++;
  return new Promise<Reply>((ok, fail) => {
    h.calls.set(id, { ok, fail });
    h.worker.ref();
    h.worker.postMessage({ id, ...message });
  });
}

let keys = 0;

/** A local S3 API (npm `s3rver`) on loopback, served from the S3 worker thread; objects are files under `dir`. */
export async function startS3Local(dir: string): Promise<S3Local> {
  mkdirSync(dir, { recursive: true });
  const h = hostOf();
  const key = keys++;
  h.servers++;
  let up = false;
  const run = async (port: number) => {
    const r = await call(h, { op: 'run', key, dir, port });
    up = true;
    return r.port!;
  };
  const down = async () => {
    if (!up) return;
    up = false;
    await call(h, { op: 'close', key });
  };
  let port: number;
  try {
    port = await run(0);
  } catch (e) {
    if (--h.servers === 0) await h.worker.terminate();
    throw e;
  }
  let stopped = false;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async restart({ downMs = 0 } = {}) {
      await down();
      if (downMs) await new Promise((r) => setTimeout(r, downMs));
      await run(port);
    },
    down,
    async up() {
      if (!up) await run(port);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await down().catch(() => undefined);
      // The last server of the worker: the thread goes too.
      if (--h.servers === 0) {
        if (host === h) host = undefined;
        await h.worker.terminate();
      }
    },
  };
}

/** Creates `bucket` on a local S3 when it is missing. */
export async function ensureLocalBucket(endpoint: string, bucket: string): Promise<void> {
  const s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  try {
    await s3.send(new HeadBucketCommand({ Bucket: bucket }));
  } catch {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    s3.destroy();
  }
}
