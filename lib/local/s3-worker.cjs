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
 * - s3rver's private modules, pinned by package.json's exact version: stores/filesystem.js
 *   (subclassed: LocalStore), models/error.js, models/account.js (the key registry the
 *   signature check reads) and controllers/bucket.js (getBucket, replaced by listObjectsV2).
 */
const { parentPort, workerData } = require('node:worker_threads');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { AsyncLocalStorage } = require('node:async_hooks');
const { Readable } = require('node:stream');
const { pipeline } = require('node:stream/promises');
const S3rver = require(workerData.s3rver);
const FilesystemStore = require(path.join(path.dirname(workerData.s3rver), 'stores', 'filesystem.js'));
const S3Error = require(path.join(path.dirname(workerData.s3rver), 'models', 'error.js'));
const AWSAccount = require(path.join(path.dirname(workerData.s3rver), 'models', 'account.js'));
const bucketController = require(path.join(path.dirname(workerData.s3rver), 'controllers', 'bucket.js'));
const { checkSigV4, SigV4Error } = require('./s3-sigv4.cjs');

/** A JSON file's content, or undefined when there is none. */
const readJson = (file) => fs.promises.readFile(file, 'utf8').then(JSON.parse, () => undefined);

const noSuchUpload = () =>
  new S3Error('NoSuchUpload', 'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.');
/** S3's smallest part but the last. */
const MIN_PART = 5 * 1024 * 1024;

const preconditionFailed = (condition = 'If-None-Match') =>
  new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', { Condition: condition });
/** S3's bucket naming rules (no escapes: a name cannot leave the store). */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Multipart uploads older than this are aborted (checked when a server starts, then hourly). */
const INCOMPLETE_UPLOAD_MS = 24 * 60 * 60 * 1000;

/** Objects are 8 MiB shards and 100 MB files: read and written in 1 MiB pieces, not fs streams' 64/16 KiB. */
const PIECE = 1024 * 1024;

/**
 * s3rver's filesystem store, with S3's behaviour where s3rver's differs and matters here:
 * - a PUT is answered once the object is on disk (s3rver answers when the bytes have been
 *   hashed, before its file is written: a GET right after could read a short object), and the
 *   object appears whole (written aside, then renamed over the old one);
 * - a PUT whose body breaks off stores nothing and leaves the old object (as S3);
 * - `Range` as S3 reads it (`byteRanges` below): `bytes=0-0` is one byte, a suffix `bytes=-N` the
 *   last N, a range that ends before it starts or is not one range of bytes is ignored (the whole
 *   object, 200), one that starts past the end and any range of an empty object but a suffix 416;
 * - `If-None-Match: *` on a PUT creates the object only if the key is free, else 412 (S3's
 *   conditional write; s3rver ignores it);
 * - reads and writes go in 1 MiB pieces (a sixteenth of the reads, buffers and callbacks);
 * - multipart uploads as S3 has them: parts checked at completion, S3's multipart ETag, and
 *   AbortMultipartUpload (below);
 * - `If-Match` on reads and `x-amz-copy-source-if-match` on copies (412 when the ETag differs);
 * - ListObjectsV2 pages as S3's (`listObjectsV2` below).
 * Keys, metadata and the MD5 ETag are s3rver's own (its getMetadata, putMetadata).
 */
class LocalStore extends FilesystemStore {
  /** Multipart uploads under way: the next part number that goes in place, where, and how many in-place parts are being written. */
  assemblies = new Map();

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

  /** Where s3rver keeps a multipart upload's key, metadata and parts; NoSuchUpload unless initiated. */
  async uploadDir(bucket, uploadId) {
    const dir = path.join(this.getResourcePath(bucket, undefined, 'uploads'), String(uploadId));
    // s3rver's ids are 32 hex digits; anything else names no upload (and no path outside the store).
    if (!/^[0-9a-f]{32}$/.test(String(uploadId)) || !(await fs.promises.stat(dir).catch(() => undefined))) throw noSuchUpload();
    return dir;
  }

  async initiateUpload(bucket, key, uploadId, metadata) {
    await super.initiateUpload(bucket, key, uploadId, metadata);
    this.assemblies.set(uploadId, { next: 1, offset: 0, writing: 0 });
  }

  /**
   * A part is answered once it is on disk (s3rver answers when hashed), written in 1 MiB pieces.
   * Parts that come in order (each one's offset known once the one before it has started: S3
   * parts carry their Content-Length) go straight into their place in the object to be, so
   * completing needs no copy; any other part (out of order, sent again) is a file of its own.
   */
  async putPart(bucket, uploadId, partNumber, content) {
    const dir = await this.uploadDir(bucket, uploadId);
    const n = Number(partNumber);
    if (!Number.isInteger(n) || n < 1 || n > 10000) throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive');
    const declared = Number(content.headers && content.headers['content-length']);
    const assembly = this.assemblies.get(uploadId);
    let place;
    if (assembly && assembly.next === n && Number.isSafeInteger(declared) && declared >= 0) {
      place = { offset: assembly.offset, size: declared };
      assembly.next += 1;
      assembly.offset += declared;
      assembly.writing += 1;
    }
    // The part is what `<n>.json` names; a new attempt replaces it (by a rename) only once it is
    // whole, so one that breaks off leaves the part as it was (as on S3).
    const file = path.join(dir, String(n));
    const attempt = place ? undefined : `${file}.${crypto.randomUUID()}`;
    const target = place ? path.join(dir, 'assembly') : attempt;
    const incomplete = () => new S3Error('IncompleteBody', 'You did not provide the number of bytes specified by the Content-Length HTTP header.');
    try {
      if (place) await (await fs.promises.open(target, 'a')).close();
      const md5 = crypto.createHash('md5');
      let size = 0;
      await pipeline(
        content,
        async function* hashed(source) {
          for await (const chunk of source) {
            md5.update(chunk);
            size += chunk.length;
            if (place && size > place.size) throw incomplete();
            yield chunk;
          }
        },
        fs.createWriteStream(target, place ? { flags: 'r+', start: place.offset, highWaterMark: PIECE } : { highWaterMark: PIECE }),
      );
      if (place && size !== place.size) throw incomplete();
      const digest = md5.digest('hex');
      const previous = await readJson(`${file}.json`);
      const json = `${file}.json.${crypto.randomUUID()}`;
      await fs.promises.writeFile(json, JSON.stringify({ md5: digest, size, ...(place ? { offset: place.offset } : { file: path.basename(attempt) }) }));
      await fs.promises.rename(json, `${file}.json`);
      if (previous && previous.file) await fs.promises.rm(path.join(dir, previous.file), { force: true });
      return { size, md5: digest };
    } catch (e) {
      if (attempt) await fs.promises.rm(attempt, { force: true });
      throw e;
    } finally {
      if (place) assembly.writing -= 1;
    }
  }

  /**
   * CompleteMultipartUpload as S3 has it (s3rver checks nothing and re-hashes the whole): the
   * parts named must be uploaded, in ascending order, with the ETags given, each but the last at
   * least 5 MiB; the object is their concatenation, appearing whole, and its ETag is S3's
   * multipart one (the MD5 of the parts' MD5s, `-<parts>`), so no byte is hashed again. When the
   * parts named are 1…n, all written in place, the object is the assembly as it stands (no copy);
   * otherwise the parts are copied together from where they are.
   */
  async putObjectMultipart(bucket, uploadId, parts) {
    const dir = await this.uploadDir(bucket, uploadId);
    const [key, metadata] = await Promise.all([
      fs.promises.readFile(path.join(dir, 'key'), 'utf8'),
      fs.promises.readFile(path.join(dir, 'metadata'), 'utf8').then(JSON.parse),
    ]);
    if (parts.some((part, i) => i > 0 && part.number <= parts[i - 1].number))
      throw new S3Error('InvalidPartOrder', 'The list of parts was not in ascending order. The parts list must be specified in order by part number.');
    const found = [];
    for (const [i, part] of parts.entries()) {
      const stored = await readJson(path.join(dir, `${part.number}.json`));
      if (!stored || stored.md5 !== part.etag)
        throw new S3Error(
          'InvalidPart',
          "One or more of the specified parts could not be found. The part might not have been uploaded, or the specified entity tag might not have matched the part's entity tag.",
        );
      if (i < parts.length - 1 && stored.size < MIN_PART)
        throw new S3Error('EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed object size.');
      found.push({ ...stored, file: stored.file && path.join(dir, stored.file) });
    }
    const size = found.reduce((sum, p) => sum + p.size, 0);
    const target = this.getResourcePath(bucket, key, 'object');
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    const assembly = path.join(dir, 'assembly');
    // A part still being written in place (not named here) would write into the object once renamed.
    const writing = (this.assemblies.get(uploadId) || { writing: 0 }).writing;
    const inPlace = !writing && found.every((p, i) => p.offset !== undefined && parts[i].number === i + 1);
    if (inPlace) {
      // Parts placed after the last one named are not part of the object.
      await fs.promises.truncate(assembly, size);
      await fs.promises.rename(assembly, target);
    } else await this.concatenate(found, assembly, target);
    const etag = `${crypto
      .createHash('md5')
      .update(Buffer.concat(found.map((p) => Buffer.from(p.md5, 'hex'))))
      .digest('hex')}-${found.length}`;
    await this.putMetadata(bucket, key, metadata, etag);
    this.assemblies.delete(uploadId);
    await fs.promises.rm(dir, { recursive: true, force: true });
    return { size, md5: etag };
  }

  /** The parts, each from its own file or its place in the assembly, copied into a new object that appears whole. */
  async concatenate(found, assembly, target) {
    const partial = `${target}.${crypto.randomUUID()}.partial`;
    const out = await fs.promises.open(partial, 'w');
    try {
      const buffer = Buffer.allocUnsafe(8 * PIECE);
      for (const part of found) {
        const input = await fs.promises.open(part.offset === undefined ? part.file : assembly, 'r');
        try {
          for (let done = 0; done < part.size; ) {
            const { bytesRead } = await input.read(buffer, 0, Math.min(buffer.length, part.size - done), (part.offset ?? 0) + done);
            if (!bytesRead) throw new Error(`part ${part.file}: short`);
            await out.write(buffer, 0, bytesRead);
            done += bytesRead;
          }
        } finally {
          await input.close();
        }
      }
      await out.close();
      await fs.promises.rename(partial, target);
    } catch (e) {
      await out.close().catch(() => undefined);
      await fs.promises.rm(partial, { force: true });
      throw e;
    }
  }

  /** AbortMultipartUpload (s3rver has no route for it): the parts go. The key must be the upload's. */
  async abortUpload(bucket, key, uploadId) {
    if (!(await this.getBucket(bucket))) throw new S3Error('NoSuchBucket', 'The specified bucket does not exist', { BucketName: bucket });
    const dir = await this.uploadDir(bucket, uploadId);
    if ((await fs.promises.readFile(path.join(dir, 'key'), 'utf8')) !== key) throw noSuchUpload();
    await fs.promises.rm(dir, { recursive: true, force: true });
    this.assemblies.delete(uploadId);
  }

  /**
   * Aborts the multipart uploads initiated more than `maxAgeMs` ago, as the bucket's lifecycle
   * rule does on AWS (cdk/stack.ts: abortIncompleteMultipartUploadAfter a day): the parts of an
   * upload whose writer died would otherwise stay on disk for good. Age from initiation (the
   * `key` file s3rver writes then), as S3 counts it.
   */
  async expireIncompleteUploads(maxAgeMs, now = Date.now()) {
    for (const { name } of await this.listBuckets()) {
      const root = this.getResourcePath(name, undefined, 'uploads');
      for (const uploadId of await fs.promises.readdir(root).catch(() => [])) {
        // No `key` yet: s3rver makes the directory, then writes it; the directory's age stands in.
        const started = await fs.promises
          .stat(path.join(root, uploadId, 'key'))
          .catch(() => fs.promises.stat(path.join(root, uploadId)))
          .catch(() => undefined);
        if (started && now - started.mtimeMs <= maxAgeMs) continue;
        await fs.promises.rm(path.join(root, uploadId), { recursive: true, force: true });
        this.assemblies.delete(uploadId);
      }
    }
  }

  async getObject(bucket, key, options) {
    const object = await super.getObject(bucket, key, options);
    const stream = object && object.content;
    if (stream instanceof fs.ReadStream) {
      // s3rver's stream (64 KiB reads) is swapped for one over the same range in 1 MiB reads.
      const { start } = stream;
      let { end } = stream;
      // s3rver reads `bytes=0-0` as `bytes=0-` (an end of 0 taken for none): it is one byte.
      // (`byteRanges` has already dropped any range that ends before it starts.)
      if (options && options.end === 0 && object.range) end = object.range.end = 0;
      stream.destroy();
      // The controller answers a range without content 416 InvalidRange: any range of an empty
      // object (S3 has no byte to give; s3rver sent 206 with a Content-Length of 1 and no byte).
      if (object.range && (end < start || object.size === 0)) {
        object.content = null;
        return object;
      }
      const handle = await fs.promises.open(this.getResourcePath(bucket, key, 'object')).catch((e) => {
        if (e.code === 'ENOENT') return undefined; // deleted since its metadata was read: NoSuchKey
        throw e;
      });
      if (!handle) return null;
      // s3rver's last byte of an empty object is 0 (its end is never below its start): none here.
      object.content = new ObjectBody(handle, start, Math.min(end, object.size - 1));
    }
    return object;
  }
}

/**
 * 1 MiB read buffers shared by every GET's body: a buffer goes back once the response has
 * written it. A fresh 1 MiB buffer per read (fs streams) is 100 MB of garbage for a 100 MB
 * download, and V8 answers that much external memory with a full collection every few tens of
 * MB: half this thread's time in a download went to them.
 */
const spareBuffers = [];
const SPARE_BUFFERS = 8;
const takeBuffer = () => spareBuffers.pop() ?? Buffer.allocUnsafeSlow(PIECE);
const giveBack = (buffer) => void (spareBuffers.length < SPARE_BUFFERS && spareBuffers.push(buffer));
/** A GET body has at most this many pieces on their way at once: one being written, one read. */
const PIECES_IN_FLIGHT = 2;
/** The bodies opened while a request is handled (`objectBodies`): those it does not send are closed. */
const bodiesOpened = new AsyncLocalStorage();

/**
 * An object's bytes `start`..`end` (inclusive) from its open file, which it closes when destroyed
 * (koa destroys a body when its response ends, s3rver a HEAD's at once, `objectBodies` one its
 * request did not send). `sendTo` is the GET path (`objectBodies` below); as a plain Readable
 * (anything else that reads it) each piece is a buffer of its own.
 */
class ObjectBody extends Readable {
  constructor(handle, start, end) {
    super({ highWaterMark: PIECE });
    this.handle = handle;
    this.at = start;
    this.end = end;
    bodiesOpened.getStore()?.add(this);
  }

  /** The next piece into `buffer`; empty at the end. A file shorter than its range is an error, not a short body. */
  async readPiece(buffer) {
    const want = Math.min(buffer.length, this.end + 1 - this.at);
    if (want <= 0) return buffer.subarray(0, 0);
    const { bytesRead } = await this.handle.read(buffer, 0, want, this.at);
    if (bytesRead === 0) throw new Error('the object ended before its range');
    this.at += bytesRead;
    return buffer.subarray(0, bytesRead);
  }

  _read() {
    this.readPiece(Buffer.allocUnsafe(Math.max(1, Math.min(PIECE, this.end + 1 - this.at)))).then(
      (piece) => this.push(piece.length ? piece : null),
      (e) => this.destroy(e),
    );
  }

  _destroy(error, callback) {
    this.handle.close().then(
      () => callback(error),
      () => callback(error),
    );
  }

  /**
   * Writes the bytes to `res` and ends it, in pooled buffers: a buffer is read into again only
   * after `res` called back for its write (the socket is done with it). A client gone stops the
   * reads; a failed read cuts the response short (its Content-Length was sent), as S3's would be.
   */
  async sendTo(res) {
    let wake = () => {};
    let inFlight = 0;
    // The socket's close too: a pipelined response still queued behind another never sees its own.
    const socket = res.req.socket;
    const gone = () => res.destroyed || socket.destroyed;
    const onClose = () => wake();
    res.once('close', onClose);
    socket.once('close', onClose);
    try {
      while (this.at <= this.end && !gone()) {
        if (inFlight >= PIECES_IN_FLIGHT) {
          await new Promise((resolve) => (wake = resolve));
          continue;
        }
        const buffer = takeBuffer();
        const piece = await this.readPiece(buffer).catch((e) => {
          giveBack(buffer);
          throw e;
        });
        if (gone()) {
          giveBack(buffer);
          break;
        }
        inFlight++;
        // On an error the socket may still hold it: that buffer is left to the collector.
        res.write(piece, (error) => {
          if (!error) giveBack(buffer);
          inFlight--;
          wake();
        });
      }
      if (!gone()) res.end();
    } catch (e) {
      res.destroy(e);
    } finally {
      res.off('close', onClose);
      socket.off('close', onClose);
      this.destroy();
    }
  }
}

/** S3's order of keys: their UTF-8 bytes. */
const byBytes = (a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
const badToken = () => new S3Error('InvalidArgument', 'The continuation token provided is incorrect', { ArgumentName: 'continuation-token' });
/** s3rver's file for an object's bytes: `<bucket>/<key>._S3rver_object`. */
const OBJECT_SUFFIX = '._S3rver_object';

/** Every key of `bucket` under `prefix` (only the directory the prefix names can hold them), unordered. */
async function keysUnder(store, bucket, prefix) {
  const base = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
  const names = await fs.promises
    .readdir(path.join(store.getBucketPath(bucket), base), { recursive: true })
    .catch((e) => (e.code === 'ENOENT' ? [] : Promise.reject(e)));
  return names
    .filter((n) => n.endsWith(OBJECT_SUFFIX))
    .map((n) => `${base ? `${base}/` : ''}${n.slice(0, -OBJECT_SUFFIX.length).split(path.sep).join('/')}`)
    .filter((k) => k.startsWith(prefix));
}

/**
 * `GET /<bucket>?list-type=2` as S3 pages it, where s3rver's differs: keys in byte order (s3rver's
 * come in directory-walk order), keys and common prefixes counted together against `max-keys`
 * (s3rver counts keys only, so a listing by delimiter came in one page whatever its size, and
 * missed prefixes holding only deeper keys), `KeyCount` counting both, and a truncated page's
 * continuation token that works (s3rver's are DES-encrypted, which OpenSSL 3 no longer offers:
 * every listing of more than a page failed with InternalError). The token is opaque to clients,
 * as S3's: here base64 of where the page ended (after a common prefix, after every key beneath
 * it). Only the page's objects have their metadata read.
 */
async function listObjectsV2(ctx) {
  const q = ctx.query;
  const bucket = ctx.params.bucket;
  const prefix = q.prefix || '';
  const delimiter = q.delimiter || '';
  let maxKeys = 1000;
  if (q['max-keys'] !== undefined) {
    if (!/^\d{1,10}$/.test(q['max-keys']))
      throw new S3Error('InvalidArgument', 'Provided max-keys not an integer or within integer range', {
        ArgumentName: 'max-keys',
        ArgumentValue: q['max-keys'],
      });
    maxKeys = Math.min(1000, Number(q['max-keys']));
  }
  let after = q['start-after'] || '';
  if (q['continuation-token'] !== undefined) {
    let token;
    try {
      token = JSON.parse(Buffer.from(q['continuation-token'], 'base64').toString('utf8'));
    } catch {
      throw badToken();
    }
    if (!token || token.bucket !== bucket || typeof token.after !== 'string') throw badToken();
    after = token.after;
  }
  const keys = (await keysUnder(ctx.store, bucket, prefix)).filter((k) => byBytes(k, after) > 0).sort(byBytes);
  // The page's entries, one more to know whether it is the last: a key, or a common prefix once.
  const entries = [];
  for (const key of keys) {
    if (entries.length > maxKeys) break;
    const end = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
    if (end === -1) entries.push({ key, object: true });
    else {
      const common = key.slice(0, end + delimiter.length);
      if (entries[entries.length - 1]?.key !== common) entries.push({ key: common, object: false });
    }
  }
  const page = entries.slice(0, maxKeys);
  // max-keys=0 asks for nothing: an empty page, as s3rver answered it, with no place to go on from.
  const truncated = maxKeys > 0 && entries.length > maxKeys;
  const last = page[page.length - 1];
  const objects = [];
  for (let i = 0; i < page.length; i += 64) {
    const batch = page.slice(i, i + 64).filter((e) => e.object);
    const metas = await Promise.all(
      batch.map((e) => ctx.store.getMetadata(bucket, e.key).catch((err) => (err.code === 'ENOENT' ? undefined : Promise.reject(err)))),
    );
    // An object deleted since the directory was read is not listed (as s3rver).
    batch.forEach((e, j) => metas[j] && objects.push({ key: e.key, metadata: metas[j] }));
  }
  ctx.body = {
    ListBucketResult: {
      '@': { xmlns: 'http://doc.s3.amazonaws.com/2006-03-01/' },
      Name: bucket,
      Prefix: prefix,
      StartAfter: q['continuation-token'] === undefined ? q['start-after'] || undefined : undefined,
      ContinuationToken: q['continuation-token'] || undefined,
      NextContinuationToken: truncated
        ? Buffer.from(JSON.stringify({ bucket, after: last.object ? last.key : `${last.key}\u{10FFFF}` })).toString('base64')
        : undefined,
      KeyCount: page.length,
      MaxKeys: maxKeys,
      Delimiter: delimiter || undefined,
      IsTruncated: truncated,
      Contents: objects.map(({ key, metadata }) => ({
        Key: key,
        LastModified: new Date(metadata['last-modified']).toISOString(),
        ETag: metadata.etag,
        Size: Number(metadata['content-length']),
        StorageClass: 'STANDARD',
      })),
      CommonPrefixes: page.flatMap((e) => (e.object ? [] : [{ Prefix: e.key }])),
    },
  };
}
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

/** A GET of an object is sent by its body (ObjectBody.sendTo), koa's headers and status as s3rver set them. */
async function objectBodies(ctx, next) {
  const opened = new Set();
  try {
    await bodiesOpened.run(opened, next);
  } finally {
    // A body s3rver opened and did not answer with (its own 304, an error after getObject) is closed now.
    for (const body of opened) if (body !== ctx.body) body.destroy();
  }
  if (ctx.method !== 'GET' || !(ctx.body instanceof ObjectBody)) return;
  ctx.respond = false;
  await ctx.body.sendTo(ctx.res);
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
