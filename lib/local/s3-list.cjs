'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { S3Error } = require('./s3rver-parts.cjs');

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

module.exports = { listObjectsV2 };
