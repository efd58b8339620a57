'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { pipeline } = require('node:stream/promises');
const { FilesystemStore, S3Error, preconditionFailed } = require('./s3rver-parts.cjs');
const { ObjectBody, PIECE } = require('./s3-object-body.cjs');

/** A JSON file's content, or undefined when there is none. */
const readJson = (file) => fs.promises.readFile(file, 'utf8').then(JSON.parse, () => undefined);

const noSuchUpload = () =>
  new S3Error('NoSuchUpload', 'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.');
/** S3's smallest part but the last. */
const MIN_PART = 5 * 1024 * 1024;

/** Multipart uploads older than this are aborted (checked when a server starts, then hourly). */
const INCOMPLETE_UPLOAD_MS = 24 * 60 * 60 * 1000;

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

module.exports = { LocalStore, INCOMPLETE_UPLOAD_MS };
