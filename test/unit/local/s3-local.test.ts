import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { connect } from 'node:net';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { describe, expect, it, vi } from 'vitest';
import { localS3Bucket } from '../../support/s3-local.ts';

const BUCKET = 'local-store';
const local = localS3Bucket(BUCKET);

const md5 = (b: Uint8Array) => createHash('md5').update(b).digest('hex');
const MiB = 1024 * 1024;
/** How many of this process's open files are `key`'s object (the local S3 is a thread of this process). */
const openFiles = (key: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === join(local.dir, BUCKET, `${key}._S3rver_object`);
    } catch {
      return false; // closed since the listing
    }
  }).length;

describe('the local S3 server', () => {
  it('stores a streamed 9 MiB PUT whole: the GET right after it, ranges across its 1 MiB reads, and the MD5 ETag', async () => {
    const bytes = randomBytes(9 * 1024 * 1024 + 17);
    const put = await local.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'big', Body: bytes, ContentLength: bytes.length }));
    expect(put.ETag).toBe(`"${md5(bytes)}"`);
    const whole = await (await local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'big' }))).Body!.transformToByteArray();
    expect(Buffer.from(whole).equals(bytes)).toBe(true);
    for (const [start, end] of [
      [0, 0],
      [1024 * 1024 - 3, 1024 * 1024 + 5],
      [5, 3 * 1024 * 1024 + 9],
      [bytes.length - 10, bytes.length - 1],
    ] as const) {
      const out = await local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'big', Range: `bytes=${start}-${end}` }));
      const got = Buffer.from(await out.Body!.transformToByteArray());
      expect([start, end, got.length]).toEqual([start, end, end - start + 1]);
      expect(got.equals(bytes.subarray(start, end + 1))).toBe(true);
      expect(out.ContentRange).toBe(`bytes ${start}-${end}/${bytes.length}`);
    }
    expect((await local.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'big' }))).ContentLength).toBe(bytes.length);
  });

  it("multipart uploads as S3 has them: the concatenation, S3's multipart ETag, parts checked at completion, abort", async () => {
    const start = async (key: string) =>
      (await local.client.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: key, ContentType: 'application/x-test' }))).UploadId!;
    const part = async (key: string, UploadId: string, PartNumber: number, body: Uint8Array) => ({
      PartNumber,
      ETag: (await local.client.send(new UploadPartCommand({ Bucket: BUCKET, Key: key, UploadId, PartNumber, Body: body, ContentLength: body.length }))).ETag!,
    });
    const complete = (key: string, UploadId: string, Parts: { PartNumber: number; ETag: string }[]) =>
      local.client.send(new CompleteMultipartUploadCommand({ Bucket: BUCKET, Key: key, UploadId, MultipartUpload: { Parts } }));

    const chunks = [randomBytes(5 * MiB), randomBytes(6 * MiB + 3), randomBytes(1234)];
    const id = await start('multi');
    const parts = [];
    for (const [i, c] of chunks.entries()) parts.push(await part('multi', id, i + 1, c));
    expect(parts.map((p) => p.ETag)).toEqual(chunks.map((c) => `"${md5(c)}"`));
    const done = await complete('multi', id, parts);
    const etag = `"${createHash('md5')
      .update(Buffer.concat(chunks.map((c) => createHash('md5').update(c).digest())))
      .digest('hex')}-3"`;
    expect(done.ETag).toBe(etag);
    const out = await local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'multi' }));
    expect([out.ETag, out.ContentType, out.ContentLength]).toEqual([etag, 'application/x-test', 11 * MiB + 1237]);
    expect(Buffer.from(await out.Body!.transformToByteArray()).equals(Buffer.concat(chunks))).toBe(true);
    // Completed: the upload is gone.
    await expect(part('multi', id, 4, randomBytes(10))).rejects.toMatchObject({ name: 'NoSuchUpload' });

    // Whatever order and repeats the parts come in, the object is the parts named, in order, as last sent.
    const [a, b, c] = [randomBytes(5 * MiB), randomBytes(5 * MiB + 1), randomBytes(99)];
    const body = async (key: string, Parts: { PartNumber: number; ETag: string }[]) => {
      await complete(key, (Parts as unknown as { id: string }[])[0]!.id, Parts);
      return Buffer.from(await (await local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))).Body!.transformToByteArray());
    };
    const named = (id: string, p: { PartNumber: number; ETag: string }) => Object.assign(p, { id });
    const shuffled = await start('shuffled');
    const p2 = named(shuffled, await part('shuffled', shuffled, 2, b));
    const p1 = named(shuffled, await part('shuffled', shuffled, 1, a));
    const p3 = named(shuffled, await part('shuffled', shuffled, 3, c));
    expect((await body('shuffled', [p1, p2, p3])).equals(Buffer.concat([a, b, c]))).toBe(true);
    const again = await start('again');
    named(again, await part('again', again, 1, a));
    named(again, await part('again', again, 2, b));
    const b2 = randomBytes(5 * MiB + 7);
    const q2 = named(again, await part('again', again, 2, b2));
    const q1 = named(again, await part('again', again, 1, b));
    expect((await body('again', [q1, q2])).equals(Buffer.concat([b, b2]))).toBe(true);
    const fewer = await start('fewer');
    const r1 = named(fewer, await part('fewer', fewer, 1, a));
    const r2 = named(fewer, await part('fewer', fewer, 2, c));
    await part('fewer', fewer, 3, b);
    expect((await body('fewer', [r1, r2])).equals(Buffer.concat([a, c]))).toBe(true);

    // Refused at completion: a part smaller than 5 MiB but the last, parts out of order, a wrong ETag, a part never sent.
    const other = await start('refused');
    const small = await part('refused', other, 1, randomBytes(MiB));
    const last = await part('refused', other, 2, randomBytes(10));
    await expect(complete('refused', other, [small, last])).rejects.toMatchObject({ name: 'EntityTooSmall' });
    const big = await part('refused', other, 1, randomBytes(5 * MiB));
    await expect(complete('refused', other, [last, big])).rejects.toMatchObject({ name: 'InvalidPartOrder' });
    await expect(complete('refused', other, [{ ...big, ETag: `"${'0'.repeat(32)}"` }, last])).rejects.toMatchObject({ name: 'InvalidPart' });
    await expect(complete('refused', other, [big, { PartNumber: 3, ETag: last.ETag }])).rejects.toMatchObject({ name: 'InvalidPart' });
    await expect(local.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'refused' }))).rejects.toMatchObject({ name: 'NotFound' });
    // Aborted: its parts go, and it can be neither continued nor completed.
    await local.client.send(new AbortMultipartUploadCommand({ Bucket: BUCKET, Key: 'refused', UploadId: other }));
    await expect(complete('refused', other, [big, last])).rejects.toMatchObject({ name: 'NoSuchUpload' });
    await expect(part('refused', other, 3, randomBytes(10))).rejects.toMatchObject({ name: 'NoSuchUpload' });
    await expect(part('refused', 'f'.repeat(32), 1, randomBytes(10))).rejects.toMatchObject({ name: 'NoSuchUpload' });
  });

  it('multipart edges: a re-sent part that breaks off leaves the part as it was; completing while a later part is still arriving; abort checks the key', async () => {
    const id = (await local.client.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: 'edges' }))).UploadId!;
    const send = async (PartNumber: number, body: Uint8Array) => ({
      PartNumber,
      ETag: (await local.client.send(new UploadPartCommand({ Bucket: BUCKET, Key: 'edges', UploadId: id, PartNumber, Body: body, ContentLength: body.length })))
        .ETag!,
    });
    // A part sent over a presigned URL whose body stops after `sent` bytes (then, if `cut`, the connection drops).
    const slowPart = async (PartNumber: number, length: number, sent: number) => {
      const url = await getSignedUrl(local.client, new UploadPartCommand({ Bucket: BUCKET, Key: 'edges', UploadId: id, PartNumber, ContentLength: length }), {
        expiresIn: 60,
      });
      const req = request(url, { method: 'PUT', headers: { 'content-length': length } });
      const closed = new Promise<void>((done) => req.on('error', () => done()).on('close', () => done()));
      await new Promise<void>((r) => req.write(randomBytes(sent), () => r()));
      return { cut: async () => (req.destroy(), closed), finish: async () => (req.end(randomBytes(length - sent)), closed) };
    };
    const one = randomBytes(5 * MiB);
    const p1 = await send(1, one);
    const broken = await slowPart(1, 5 * MiB, MiB);
    await new Promise((r) => setTimeout(r, 100));
    await broken.cut();
    await new Promise((r) => setTimeout(r, 300));
    const two = randomBytes(5 * MiB);
    const p2 = await send(2, two);
    const late = await slowPart(3, 2 * MiB, MiB);
    await new Promise((r) => setTimeout(r, 100));
    await local.client.send(new CompleteMultipartUploadCommand({ Bucket: BUCKET, Key: 'edges', UploadId: id, MultipartUpload: { Parts: [p1, p2] } }));
    await late.finish();
    const got = Buffer.from(await (await local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'edges' }))).Body!.transformToByteArray());
    expect(got.equals(Buffer.concat([one, two]))).toBe(true);

    const other = (await local.client.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: 'abort-me' }))).UploadId!;
    await expect(local.client.send(new AbortMultipartUploadCommand({ Bucket: BUCKET, Key: 'not-its-key', UploadId: other }))).rejects.toMatchObject({
      name: 'NoSuchUpload',
    });
    await expect(local.client.send(new AbortMultipartUploadCommand({ Bucket: 'no-such-bucket', Key: 'abort-me', UploadId: other }))).rejects.toMatchObject({
      name: 'NoSuchBucket',
    });
    await local.client.send(new AbortMultipartUploadCommand({ Bucket: BUCKET, Key: 'abort-me', UploadId: other }));
  });

  it('aborts multipart uploads started over a day ago when it starts (the bucket lifecycle rule on AWS); younger ones go on', async () => {
    const start = async (key: string) => (await local.client.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: key }))).UploadId!;
    const part = (key: string, UploadId: string, PartNumber: number, body: Uint8Array) =>
      local.client.send(new UploadPartCommand({ Bucket: BUCKET, Key: key, UploadId, PartNumber, Body: body, ContentLength: body.length }));
    const stale = await start('stale');
    await part('stale', stale, 1, randomBytes(5 * MiB));
    const fresh = await start('fresh');
    const first = randomBytes(5 * MiB);
    const p1 = await part('fresh', fresh, 1, first);
    const uploads = join(local.dir, BUCKET, '._S3rver_uploads');
    expect(readdirSync(uploads)).toEqual(expect.arrayContaining([fresh, stale]));
    // Initiated 25 hours ago (s3rver's `key` file is written when an upload is initiated).
    const then = new Date(Date.now() - 25 * 3600_000);
    utimesSync(join(uploads, stale, 'key'), then, then);
    await local.server.restart();
    expect(readdirSync(uploads)).toContain(fresh);
    expect(readdirSync(uploads)).not.toContain(stale);
    await expect(part('stale', stale, 2, randomBytes(10))).rejects.toMatchObject({ name: 'NoSuchUpload' });
    const p2 = await part('fresh', fresh, 2, Buffer.from('end'));
    await local.client.send(
      new CompleteMultipartUploadCommand({
        Bucket: BUCKET,
        Key: 'fresh',
        UploadId: fresh,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: p1.ETag! },
            { PartNumber: 2, ETag: p2.ETag! },
          ],
        },
      }),
    );
    const got = await (await local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'fresh' }))).Body!.transformToByteArray();
    expect(Buffer.from(got).equals(Buffer.concat([first, Buffer.from('end')]))).toBe(true);
  });

  it('honours If-Match on a GET and x-amz-copy-source-if-match on a copy (412 when the ETag is another)', async () => {
    const body = randomBytes(1000);
    const put = await local.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'matched', Body: body }));
    const wrong = '"00000000000000000000000000000000"';
    await expect(local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'matched', IfMatch: wrong }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 412 },
    });
    const got = await local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'matched', IfMatch: put.ETag }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body)).toBe(true);
    await expect(
      local.client.send(new CopyObjectCommand({ Bucket: BUCKET, Key: 'copied', CopySource: `${BUCKET}/matched`, CopySourceIfMatch: wrong })),
    ).rejects.toMatchObject({ name: 'PreconditionFailed' });
    const copied = await local.client.send(
      new CopyObjectCommand({ Bucket: BUCKET, Key: 'copied', CopySource: `${BUCKET}/matched`, CopySourceIfMatch: put.ETag }),
    );
    expect(copied.CopyObjectResult?.ETag).toBe(put.ETag);
  });

  it("answers If-None-Match and If-Modified-Since on a GET or HEAD with 304 (s3rver's rule) and closes the file it opened; sends the object otherwise", async () => {
    const body = randomBytes(3000);
    const put = await local.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'unchanged', Body: body }));
    const notModified = { $metadata: { httpStatusCode: 304 } };
    const later = new Date(Date.now() + 60_000);
    const earlier = new Date(Date.now() - 3600_000);
    for (const condition of [{ IfNoneMatch: put.ETag }, { IfNoneMatch: '*' }, { IfModifiedSince: later }, { IfNoneMatch: '"0"', IfModifiedSince: later }]) {
      await expect(local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'unchanged', ...condition }))).rejects.toMatchObject(notModified);
      await expect(local.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'unchanged', ...condition }))).rejects.toMatchObject(notModified);
    }
    for (const condition of [{ IfNoneMatch: '"0"' }, { IfModifiedSince: earlier }]) {
      const got = await local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'unchanged', ...condition }));
      expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body)).toBe(true);
    }
    await expect(local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'no-such', IfNoneMatch: '*' }))).rejects.toMatchObject({ name: 'NoSuchKey' });
    await vi.waitFor(() => expect(openFiles('unchanged')).toBe(0)); // a close completes after the answer
  });

  it('sends GET bodies from read buffers it reuses, never one the socket still holds: a reader stalled mid-body gets its bytes whole while others read', async () => {
    // Larger than the kernel's socket buffers here (4 MiB to send): the stalled body cannot all leave the server.
    const objects = { one: randomBytes(16 * MiB + 5), two: randomBytes(5 * MiB + 77) };
    for (const [Key, Body] of Object.entries(objects)) await local.client.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body }));
    const url = await getSignedUrl(local.client, new GetObjectCommand({ Bucket: BUCKET, Key: 'one' }), { expiresIn: 60 });
    // The stalled reader takes one chunk, then reads nothing while 12 other reads run.
    const stalled = await new Promise<import('node:http').IncomingMessage>((ok, fail) => request(url, ok).on('error', fail).end());
    const first: Buffer = await new Promise((ok) => stalled.once('data', (c: Buffer) => (stalled.pause(), ok(c))));
    // The server is still sending it (its file open): its pieces wait in the response.
    await new Promise((ok) => setTimeout(ok, 100));
    expect(openFiles('one')).toBe(1);
    const others = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const Key = i % 2 ? 'one' : 'two';
        const range = i % 3 ? undefined : ([i * 1000, i * 1000 + 2 * MiB + 1] as const);
        const out = await local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key, ...(range ? { Range: `bytes=${range[0]}-${range[1]}` } : {}) }));
        const got = Buffer.from(await out.Body!.transformToByteArray());
        return got.equals(range ? objects[Key].subarray(range[0], range[1] + 1) : objects[Key]);
      }),
    );
    expect(others.every(Boolean)).toBe(true);
    const rest: Buffer[] = [first];
    stalled.on('data', (c: Buffer) => rest.push(c));
    stalled.resume();
    await new Promise((ok) => stalled.on('end', ok));
    expect(Buffer.concat(rest).equals(objects.one)).toBe(true);
  });

  it("closes an object's file when its reader goes away mid-body, and after a HEAD", async () => {
    const body = randomBytes(16 * MiB);
    await local.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'left', Body: body }));
    await local.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'left' }));
    const url = await getSignedUrl(local.client, new GetObjectCommand({ Bucket: BUCKET, Key: 'left' }), { expiresIn: 60 });
    const res = await new Promise<import('node:http').IncomingMessage>((ok, fail) => request(url, ok).on('error', fail).end());
    await new Promise((ok) => res.once('data', () => (res.pause(), ok(undefined))));
    expect(openFiles('left')).toBe(1);
    res.destroy();
    await vi.waitFor(() => expect(openFiles('left')).toBe(0));
    // Pipelined GETs on one connection, the connection dropped while the first is sent: the ones
    // queued behind it never see a close of their own, the connection's ends them.
    const { host, pathname, search } = new URL(url);
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    await new Promise((ok) => socket.once('connect', ok));
    socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${host}\r\n\r\n`.repeat(3));
    await new Promise((ok) => socket.once('data', ok));
    await vi.waitFor(() => expect(openFiles('left')).toBeGreaterThan(0));
    socket.destroy();
    await vi.waitFor(() => expect(openFiles('left')).toBe(0));
    // The server goes on serving.
    const again = await local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'left' }));
    expect(Buffer.from(await again.Body!.transformToByteArray()).equals(body)).toBe(true);
    await vi.waitFor(() => expect(openFiles('left')).toBe(0));
  });

  it('pages ListObjectsV2 as S3 does: keys and common prefixes count together, continuation tokens and StartAfter work', async () => {
    const keys = ['list/a', 'list/b/1', 'list/b/2', 'list/c', 'list/d/1', 'list/e/x/1', 'list/f'];
    for (const Key of keys) await local.client.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: Key }));
    const pages = async (input: { Prefix: string; Delimiter?: string; StartAfter?: string }, MaxKeys: number) => {
      const out: { keys: string[]; prefixes: string[]; count: number }[] = [];
      let ContinuationToken: string | undefined;
      do {
        const page = await local.client.send(new ListObjectsV2Command({ Bucket: BUCKET, ...input, MaxKeys, ContinuationToken }));
        out.push({ keys: (page.Contents ?? []).map((c) => c.Key!), prefixes: (page.CommonPrefixes ?? []).map((p) => p.Prefix!), count: page.KeyCount! });
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
        expect(page.IsTruncated ? ContinuationToken : 'end').toBeDefined();
      } while (ContinuationToken);
      return out;
    };
    // Without a delimiter: two keys a page, every key once, in order.
    const flat = await pages({ Prefix: 'list/' }, 2);
    expect(flat.flatMap((p) => p.keys)).toEqual(keys);
    expect(flat.map((p) => p.count)).toEqual([2, 2, 2, 1]);
    // By delimiter: a common prefix takes a place in the page as a key does.
    const grouped = await pages({ Prefix: 'list/', Delimiter: '/' }, 2);
    expect(grouped).toEqual([
      { keys: ['list/a'], prefixes: ['list/b/'], count: 2 },
      { keys: ['list/c'], prefixes: ['list/d/'], count: 2 },
      { keys: ['list/f'], prefixes: ['list/e/'], count: 2 },
    ]);
    // StartAfter inside the order, and past a common prefix's keys.
    expect((await pages({ Prefix: 'list/', Delimiter: '/', StartAfter: 'list/b0' }, 1000)).flatMap((p) => [...p.keys, ...p.prefixes]).sort()).toEqual([
      'list/c',
      'list/d/',
      'list/e/',
      'list/f',
    ]);
    expect((await pages({ Prefix: 'list/', StartAfter: 'list/d/1' }, 1000))[0]!.keys).toEqual(['list/e/x/1', 'list/f']);
    // Byte order, not the directory walk's: '-' and '.' sort before '/'.
    const walk = ['walk/a-c', 'walk/a.b', 'walk/a/1', 'walk/z'];
    for (const Key of [...walk].reverse()) await local.client.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: Key }));
    expect((await pages({ Prefix: 'walk/' }, 1)).flatMap((p) => p.keys)).toEqual(walk);
    expect((await pages({ Prefix: 'walk/', Delimiter: '/' }, 1)).map((p) => [...p.keys, ...p.prefixes][0])).toEqual([
      'walk/a-c',
      'walk/a.b',
      'walk/a/',
      'walk/z',
    ]);
    // MaxKeys 0 with keys to list: an empty page, not truncated.
    const none = await local.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'list/', MaxKeys: 0 }));
    expect({ contents: none.Contents ?? [], count: none.KeyCount, truncated: none.IsTruncated }).toEqual({ contents: [], count: 0, truncated: false });
    // A token that is not one is S3's 400 InvalidArgument.
    await expect(local.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'list/', ContinuationToken: 'bm90IGEgdG9rZW4=' }))).rejects.toMatchObject(
      { name: 'InvalidArgument', $metadata: { httpStatusCode: 400 } },
    );
  });

  it('stores an empty object', async () => {
    await local.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'empty', Body: new Uint8Array(0), ContentLength: 0 }));
    const out = await local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'empty' }));
    expect((await out.Body!.transformToByteArray()).length).toBe(0);
    // No byte to give: a range of it is 416 (s3rver sent 206 with a Content-Length of 1 and no byte).
    for (const Range of ['bytes=0-0', 'bytes=0-']) {
      await expect(local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'empty', Range })), Range).rejects.toMatchObject({
        name: 'InvalidRange',
        $metadata: { httpStatusCode: 416 },
      });
    }
    // But a suffix, the one range an empty object can satisfy (RFC 9110 §14.1.1): 200, empty, as S3 answers it.
    const suffix = await local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'empty', Range: 'bytes=-1' }));
    expect([suffix.$metadata.httpStatusCode, suffix.ContentRange, (await suffix.Body!.transformToByteArray()).length]).toEqual([200, undefined, 0]);
  });

  it('reads Range as S3 does: one range, a suffix, clamped at the end; ignored when it is not one range or ends before it starts; 416 past the end', async () => {
    await local.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'ten', Body: Buffer.from('0123456789') }));
    const get = async (Range: string) => {
      const out = await local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'ten', Range }));
      return [out.$metadata.httpStatusCode, out.ContentRange, out.ContentLength, Buffer.from(await out.Body!.transformToByteArray()).toString()];
    };
    expect(await get('bytes=0-0')).toEqual([206, 'bytes 0-0/10', 1, '0']);
    expect(await get('bytes=3-5')).toEqual([206, 'bytes 3-5/10', 3, '345']);
    expect(await get('bytes=7-')).toEqual([206, 'bytes 7-9/10', 3, '789']);
    expect(await get('bytes=8-100')).toEqual([206, 'bytes 8-9/10', 2, '89']);
    // A suffix is the last N bytes (s3rver gave the first N + 1), all of them when N is larger.
    expect(await get('bytes=-3')).toEqual([206, 'bytes 7-9/10', 3, '789']);
    expect(await get('bytes=-20')).toEqual([206, 'bytes 0-9/10', 10, '0123456789']);
    // Not one range of bytes, or one that ends before it starts (bytes=N-0 included, which s3rver
    // read as N-): ignored, the whole object (S3 and RFC 9110).
    for (const Range of ['bytes=5-0', 'bytes=9-3', 'bytes=abc', 'bytes=0-1,4-5', 'items=0-1', 'bytes=', 'bytes=9007199254740993-9007199254740992']) {
      expect(await get(Range), Range).toEqual([200, undefined, 10, '0123456789']);
    }
    for (const Range of ['bytes=10-', 'bytes=12-15', 'bytes=-0']) {
      await expect(local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'ten', Range })), Range).rejects.toMatchObject({
        name: 'InvalidRange',
        $metadata: { httpStatusCode: 416 },
      });
    }
    // HEAD reads Range as GET does.
    const head = await local.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'ten', Range: 'bytes=-3' }));
    expect([head.$metadata.httpStatusCode, head.ContentRange, head.ContentLength]).toEqual([206, 'bytes 7-9/10', 3]);
    // A suffix of an object that does not exist is still NoSuchKey.
    await expect(local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'no-such-key', Range: 'bytes=-3' }))).rejects.toMatchObject({
      name: 'NoSuchKey',
    });
    await vi.waitFor(() => expect(openFiles('ten')).toBe(0));
  });

  it('keeps nothing of a PUT whose body breaks off (as S3), and the old object stays', async () => {
    const old = randomBytes(1000);
    await local.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'cut', Body: old, ContentLength: old.length }));
    // A presigned PUT announcing 4 MiB that sends 1 MiB and then drops the connection.
    const url = await getSignedUrl(local.client, new PutObjectCommand({ Bucket: BUCKET, Key: 'cut-new' }), { expiresIn: 60 });
    await new Promise<void>((done) => {
      const req = request(url, { method: 'PUT', headers: { 'content-length': 4 * 1024 * 1024 } });
      req.on('error', () => done());
      req.on('close', () => done());
      req.write(randomBytes(1024 * 1024), () => setTimeout(() => req.destroy(), 50));
    });
    // The server notices the broken body and removes what it wrote.
    await new Promise((r) => setTimeout(r, 300));
    await expect
      .poll(
        async () =>
          local.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'cut-new' })).then(
            () => 'there',
            (e: { name?: string }) => e.name,
          ),
        { timeout: 5000 },
      )
      .toBe('NotFound');
    const still = await (await local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'cut' }))).Body!.transformToByteArray();
    expect(Buffer.from(still).equals(old)).toBe(true);
  });

  it('honours If-None-Match: * on a PUT (a conditional write): created once, then 412 and the object unchanged, also for racing PUTs', async () => {
    const first = randomBytes(2 * 1024 * 1024);
    const put = (key: string, body: Uint8Array) =>
      local.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body, ContentLength: body.length, IfNoneMatch: '*' }));
    await put('once', first);
    await expect(put('once', randomBytes(100))).rejects.toMatchObject({ name: 'PreconditionFailed', $metadata: { httpStatusCode: 412 } });
    const got = await (await local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'once' }))).Body!.transformToByteArray();
    expect(Buffer.from(got).equals(first)).toBe(true);
    // Without the condition the key is overwritten, as on S3.
    await local.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'once', Body: new Uint8Array(3), ContentLength: 3 }));
    expect((await local.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'once' }))).ContentLength).toBe(3);
    // Racing creates: exactly one wins, and the object is the winner's.
    const bodies = [1, 2, 3, 4].map(() => randomBytes(3 * 1024 * 1024));
    const results = await Promise.allSettled(bodies.map((b) => put('raced', b)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.name)).toEqual([
      'PreconditionFailed',
      'PreconditionFailed',
      'PreconditionFailed',
    ]);
    const winner = bodies[results.findIndex((r) => r.status === 'fulfilled')]!;
    const stored = await (await local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'raced' }))).Body!.transformToByteArray();
    expect(Buffer.from(stored).equals(winner)).toBe(true);
  });

  it('checks V4 signatures as S3 does: a presigned URL binds its key, signed headers and expiry; a wrong secret is refused', async () => {
    const body = randomBytes(64);
    const url = await getSignedUrl(local.client, new PutObjectCommand({ Bucket: BUCKET, Key: 'signed/a', ContentLength: body.length, IfNoneMatch: '*' }), {
      expiresIn: 60,
      signableHeaders: new Set(['content-length', 'if-none-match']),
    });
    const put = (to: string, headers: Record<string, string> = { 'if-none-match': '*' }, data: Buffer = body) =>
      fetch(to, { method: 'PUT', body: new Uint8Array(data), headers });
    const codeOf = async (res: Response) => /<Code>([^<]+)<\/Code>/.exec(await res.text())?.[1];
    // Another key, a signed header left out, another length, a changed signature: all refused.
    let res = await put(url.replace('/signed/a?', '/signed/b?'));
    expect([res.status, await codeOf(res)]).toEqual([403, 'SignatureDoesNotMatch']);
    res = await put(url, {});
    expect([res.status, await codeOf(res)]).toEqual([403, 'SignatureDoesNotMatch']);
    res = await put(url, { 'if-none-match': '*' }, randomBytes(65));
    expect([res.status, await codeOf(res)]).toEqual([403, 'SignatureDoesNotMatch']);
    res = await put(url.replace(/X-Amz-Signature=([0-9a-f])/, (_, c: string) => `X-Amz-Signature=${c === '0' ? '1' : '0'}`));
    expect([res.status, await codeOf(res)]).toEqual([403, 'SignatureDoesNotMatch']);
    await expect(local.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'signed/b' }))).rejects.toMatchObject({ name: 'NotFound' });
    // The URL as signed works.
    expect((await put(url)).status).toBe(200);
    // Expired: signed an hour ago for 60 s.
    const old = await getSignedUrl(local.client, new GetObjectCommand({ Bucket: BUCKET, Key: 'signed/a' }), {
      expiresIn: 60,
      signingDate: new Date(Date.now() - 3600_000),
    });
    res = await fetch(old);
    expect([res.status, await codeOf(res)]).toEqual([403, 'AccessDenied']);
    // Header-signed requests with a wrong secret.
    const { S3Client } = await import('@aws-sdk/client-s3');
    const wrong = new S3Client({
      region: 'us-east-1',
      endpoint: local.server.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'not-the-secret' },
    });
    await expect(wrong.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'signed/a' }))).rejects.toMatchObject({
      name: 'SignatureDoesNotMatch',
      $metadata: { httpStatusCode: 403 },
    });
    wrong.destroy();
  });
});
