/**
 * The local S3 servers' thread (see s3-local.ts): npm `s3rver`, one server per message 'run',
 * each on a store of its own (below) and behind the V4 signature check (s3-sigv4.cjs). Plain
 * CommonJS: the worker loads without the TypeScript loader (vitest, tsx).
 *
 * Its boundary (test/unit/local/s3-worker-boundary.test.ts checks both sides):
 * - in: `workerData.s3rver`, the resolved path of s3rver's entry; messages
 *   `{ id, op: 'run', key, dir, port }` (port 0: any) and `{ id, op: 'close', key }`;
 * - out: `{ id, port }` once 'run' listens on 127.0.0.1, `{ id }` once 'close' is done, and
 *   `{ id, error }` (the stack as text) when either failed;
 * - s3rver's private modules (loaded by s3rver-parts.cjs), pinned by package.json's exact
 *   version: stores/filesystem.js (subclassed: LocalStore, s3-store.cjs), models/error.js,
 *   models/account.js (the key registry the signature check reads) and controllers/bucket.js
 *   (getBucket, replaced by listObjectsV2: s3-list.cjs).
 *
 * Its parts: the store (s3-store.cjs), a GET's body (s3-object-body.cjs), ListObjectsV2
 * (s3-list.cjs); here the middlewares in front of s3rver's and the servers' lifecycle.
 */
const { parentPort } = require('node:worker_threads');
const { S3rver, S3Error, AWSAccount, bucketController, BUCKET_NAME, preconditionFailed } = require('./s3rver-parts.cjs');
const { checkSigV4, SigV4Error } = require('./s3-sigv4.cjs');
const { LocalStore, INCOMPLETE_UPLOAD_MS } = require('./s3-store.cjs');
const { objectBodies } = require('./s3-object-body.cjs');
const { listObjectsV2 } = require('./s3-list.cjs');

const s3rverGetBucket = bucketController.getBucket;
// s3rver's routes look the controller up on each call: GET /<bucket> with list-type=2 comes here.
bucketController.getBucket = (ctx) => (ctx.query['list-type'] === '2' ? listObjectsV2(ctx) : s3rverGetBucket(ctx));

const secretOf = (accessKeyId) => AWSAccount.registry.get(accessKeyId)?.accessKeys.get(accessKeyId);

async function signatureCheck(ctx, next) {
  try {
    checkSigV4(ctx.req, secretOf, Date.now());
  } catch (e) {
    // s3rver's error handler answers an S3Error as S3 does (status, XML body).
    if (e instanceof SigV4Error) throw new S3Error(e.code, e.message);
    throw e;
  }
  return next();
}

/** The bucket and key of a path-style request, `/<bucket>/<key>` (the key URI-decoded; else S3's InvalidURI). */
function pathObject(ctx) {
  const [, bucket = '', ...rest] = ctx.path.split('/');
  try {
    return { bucket, key: decodeURIComponent(rest.join('/')) };
  } catch {
    throw new S3Error('InvalidURI', "Couldn't parse the specified URI.");
  }
}

/** `DELETE /<bucket>/<key>?uploadId=…` is AbortMultipartUpload: 204, as S3 answers. */
async function abortMultipartUpload(ctx, next) {
  if (ctx.method !== 'DELETE' || ctx.query.uploadId === undefined) return next();
  const { bucket, key } = pathObject(ctx);
  if (!BUCKET_NAME.test(bucket)) throw new S3Error('NoSuchBucket', 'The specified bucket does not exist', { BucketName: bucket });
  await ctx.store.abortUpload(bucket, key, String(ctx.query.uploadId));
  ctx.status = 204;
}

/**
 * `If-Match` on a GET or HEAD and `x-amz-copy-source-if-match` on a copy, as S3 has them (s3rver
 * ignores both): 412 PreconditionFailed when the object's ETag is another.
 */
async function matchConditions(ctx, next) {
  const copy = ctx.method === 'PUT' && ctx.headers['x-amz-copy-source'];
  const expected = copy ? ctx.headers['x-amz-copy-source-if-match'] : (ctx.method === 'GET' || ctx.method === 'HEAD') && ctx.headers['if-match'];
  if (!expected) return next();
  let bucket, key;
  try {
    // The source as s3rver's copy reads it; else the path-style /<bucket>/<key>.
    const [b, ...rest] = (copy ? decodeURI(copy).replace(/^\//, '') : ctx.path.slice(1)).split('/');
    bucket = b;
    key = copy ? rest.join('/') : decodeURIComponent(rest.join('/'));
  } catch {
    throw new S3Error('InvalidURI', "Couldn't parse the specified URI.");
  }
  if (!BUCKET_NAME.test(bucket)) return next(); // s3rver answers NoSuchBucket
  const meta = await ctx.store.getMetadata(bucket, key).catch(() => undefined);
  const unquoted = (etag) => String(etag).replace(/^"|"$/g, '');
  if (meta && unquoted(meta.etag) !== unquoted(expected)) {
    throw preconditionFailed(copy ? 'x-amz-copy-source-If-Match' : 'If-Match');
  }
  return next();
}

/**
 * A GET's `Range` as S3 reads it, before s3rver's parse (which takes `bytes=-N` for the first N + 1
 * bytes and anything else for a range from its numbers): one range `bytes=first-[last]` goes on to
 * s3rver (416 there when it starts past the end); a suffix `bytes=-N` becomes the last N bytes
 * (all of them when N exceeds the size; 416 for none; on an empty object, the empty whole: RFC 9110
 * §14.1.1 makes a suffix the one range such an object can satisfy, and S3 answers it 200); and a
 * header that is not one range of bytes, or ends before it starts, is ignored, as S3 does (RFC
 * 9110: the whole object, 200). GET and HEAD alike (HeadObject takes a Range too).
 */
async function byteRanges(ctx, next) {
  const range = ctx.headers.range;
  if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || range === undefined) return next();
  const closed = /^bytes=(\d+)-(\d*)$/.exec(range);
  const suffix = /^bytes=-(\d+)$/.exec(range);
  // BigInt: positions past 2^53 compared exactly (s3rver then finds them past the end: 416).
  if (closed && (closed[2] === '' || BigInt(closed[2]) >= BigInt(closed[1]))) return next();
  if (!suffix) {
    delete ctx.headers.range;
    return next();
  }
  const { bucket, key } = pathObject(ctx);
  const meta = BUCKET_NAME.test(bucket) && key ? await ctx.store.getMetadata(bucket, key).catch(() => undefined) : undefined;
  if (!meta) return next(); // s3rver answers NoSuchBucket / NoSuchKey
  const size = Number(meta['content-length']);
  const wanted = Number(suffix[1]);
  if (wanted === 0) throw new S3Error('InvalidRange', 'The requested range is not satisfiable', { RangeRequested: range, ActualObjectSize: size });
  if (size === 0) {
    delete ctx.headers.range;
    return next();
  }
  ctx.headers.range = `bytes=${Math.max(0, size - wanted)}-${size - 1}`;
  return next();
}

const servers = new Map();
parentPort.on('message', async ({ id, op, key, dir, port }) => {
  try {
    if (op === 'run') {
      const server = new S3rver({ address: '127.0.0.1', port, directory: dir, silent: true });
      // s3rver's listen waits for 'listening' only: a taken port (a restart after the port went to
      // someone else) is an 'error' event nobody handles, which ended this thread and every server
      // in it. It rejects the 'run' instead, and the caller sees why.
      const listen = server.listen;
      server.listen = (...args) =>
        new Promise((ok, fail) => {
          const http = listen.call(server, ...args, () => {
            http.off('error', fail);
            ok(http);
          });
          http.once('error', fail);
        });
      const store = (server.store = server.context.store = new LocalStore(dir));
      await store.expireIncompleteUploads(INCOMPLETE_UPLOAD_MS);
      // First in the chain: V4 signatures are checked as S3 checks them (s3rver parses and accepts them).
      server.middleware.unshift(signatureCheck);
      server.middleware.splice(server.middleware.indexOf(signatureCheck) + 1, 0, abortMultipartUpload, matchConditions, byteRanges, objectBodies);
      const bound = await server.run();
      server.expiry = setInterval(() => store.expireIncompleteUploads(INCOMPLETE_UPLOAD_MS).catch(() => undefined), 60 * 60 * 1000).unref();
      servers.set(key, server);
      parentPort.postMessage({ id, port: bound.port });
    } else {
      const server = servers.get(key);
      servers.delete(key);
      if (server) {
        clearInterval(server.expiry);
        await server.close();
      }
      parentPort.postMessage({ id });
    }
  } catch (e) {
    parentPort.postMessage({ id, error: String((e && e.stack) || e) });
  }
});
