/**
 * The local S3 servers' thread (see s3-local.ts): npm `s3rver`, one server per message 'run',
 * each on a store of its own (below) and behind the V4 signature check (s3-sigv4.cjs). Plain
 * CommonJS: the worker loads without the TypeScript loader (vitest, tsx).
 */
const { parentPort, workerData } = require('node:worker_threads');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { pipeline } = require('node:stream/promises');
const S3rver = require(workerData.s3rver);
const FilesystemStore = require(path.join(path.dirname(workerData.s3rver), 'stores', 'filesystem.js'));
const S3Error = require(path.join(path.dirname(workerData.s3rver), 'models', 'error.js'));
const AWSAccount = require(path.join(path.dirname(workerData.s3rver), 'models', 'account.js'));
const { checkSigV4, SigV4Error } = require('./s3-sigv4.cjs');

const preconditionFailed = () => new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', { Condition: 'If-None-Match' });

/** Objects are 8 MiB shards and 100 MB files: read and written in 1 MiB pieces, not fs streams' 64/16 KiB. */
const PIECE = 1024 * 1024;

/**
 * s3rver's filesystem store, with S3's behaviour where s3rver's differs and matters here:
 * - a PUT is answered once the object is on disk (s3rver answers when the bytes have been
 *   hashed, before its file is written: a GET right after could read a short object), and the
 *   object appears whole (written aside, then renamed over the old one);
 * - a PUT whose body breaks off stores nothing and leaves the old object (as S3);
 * - `Range: bytes=0-0` is one byte;
 * - `If-None-Match: *` on a PUT creates the object only if the key is free, else 412 (S3's
 *   conditional write; s3rver ignores it);
 * - reads and writes go in 1 MiB pieces (a sixteenth of the reads, buffers and callbacks).
 * Keys, metadata and the MD5 ETag are s3rver's own (its getMetadata, putMetadata).
 */
class LocalStore extends FilesystemStore {
  async putObject(object) {
    const file = this.getResourcePath(object.bucket, object.key, 'object');
    const createOnly = object.content && object.content.headers && object.content.headers['if-none-match'] === '*';
    if (createOnly && (await this.existsObject(object.bucket, object.key))) throw preconditionFailed();
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    // Written beside the object and renamed over it when whole: a reader sees the old object or
    // the new one, and a PUT that fails late cannot remove one that a later PUT stored.
    const partial = `${file}.${crypto.randomUUID()}.partial`;
    const md5 = crypto.createHash('md5');
    let size = 0;
    try {
      if (Buffer.isBuffer(object.content)) {
        md5.update(object.content);
        size = object.content.length;
        await fs.promises.writeFile(partial, object.content);
      } else {
        await pipeline(
          object.content,
          async function* hashed(source) {
            for await (const chunk of source) {
              md5.update(chunk);
              size += chunk.length;
              yield chunk;
            }
          },
          fs.createWriteStream(partial, { highWaterMark: PIECE }),
        );
      }
      if (createOnly) {
        // A hard link fails if the name exists: the check and the write are one step, as on S3.
        await fs.promises.link(partial, file).catch((e) => {
          if (e.code === 'EEXIST') throw preconditionFailed();
          throw e;
        });
        await fs.promises.rm(partial, { force: true });
      } else await fs.promises.rename(partial, file);
    } catch (e) {
      await fs.promises.rm(partial, { force: true });
      throw e;
    }
    const digest = md5.digest('hex');
    await this.putMetadata(object.bucket, object.key, object.metadata, digest);
    return { size, md5: digest };
  }

  async getObject(bucket, key, options) {
    const object = await super.getObject(bucket, key, options);
    const stream = object && object.content;
    if (stream instanceof fs.ReadStream) {
      // s3rver's stream (64 KiB reads) is swapped for one over the same range in 1 MiB reads.
      const { start } = stream;
      let { end } = stream;
      // s3rver reads `bytes=0-0` as the whole object (an end of 0 taken for none); S3 gives one byte.
      if (options && options.end === 0 && object.range) end = object.range.end = 0;
      stream.destroy();
      object.content = await new Promise((resolve, reject) => {
        const wide = fs.createReadStream(this.getResourcePath(bucket, key, 'object'), { start, end, highWaterMark: PIECE });
        wide.on('error', reject).on('open', () => resolve(wide));
      });
    }
    return object;
  }
}

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

const servers = new Map();
parentPort.on('message', async ({ id, op, key, dir, port }) => {
  try {
    if (op === 'run') {
      const server = new S3rver({ address: '127.0.0.1', port, directory: dir, silent: true });
      server.store = server.context.store = new LocalStore(dir);
      // First in the chain: V4 signatures are checked as S3 checks them (s3rver parses and accepts them).
      server.middleware.unshift(signatureCheck);
      const bound = await server.run();
      servers.set(key, server);
      parentPort.postMessage({ id, port: bound.port });
    } else {
      const server = servers.get(key);
      servers.delete(key);
      if (server) await server.close();
      parentPort.postMessage({ id });
    }
  } catch (e) {
    parentPort.postMessage({ id, error: String((e && e.stack) || e) });
  }
});
