import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startS3Local } from '#lib/local/s3-local.ts';

/**
 * The boundary of lib/local/s3-worker.cjs, an untyped CommonJS thread: what it takes from
 * s3rver's private modules (which a new s3rver could move or rename: package.json pins 3.7.1)
 * and the messages it answers (lib/local/s3-local.ts sends them). The S3 behaviour itself is
 * test/unit/local/s3-local.test.ts's.
 */
const require = createRequire(import.meta.url);
const entry = require.resolve('s3rver');
const privateModule = (...parts: string[]) => require(join(dirname(entry), ...parts));

describe('the local S3 worker’s boundary', () => {
  it('finds s3rver’s private modules with the members the worker subclasses, calls or replaces', () => {
    const FilesystemStore = privateModule('stores', 'filesystem.js');
    const base = FilesystemStore.prototype;
    // Overridden (s3rver's controllers call them) and called on the base class.
    for (const m of [
      'putObject',
      'initiateUpload',
      'putPart',
      'putObjectMultipart',
      'getObject',
      'getResourcePath',
      'getMetadata',
      'putMetadata',
      'existsObject',
      'getBucket',
      'listBuckets',
    ]) {
      expect(typeof base[m], `FilesystemStore.prototype.${m}`).toBe('function');
    }
    const S3Error = privateModule('models', 'error.js');
    const e = new S3Error('NoSuchUpload', 'gone', {});
    expect(e.code).toBe('NoSuchUpload');
    expect(privateModule('models', 'account.js').registry).toBeInstanceOf(Map);
    expect(typeof privateModule('controllers', 'bucket.js').getBucket).toBe('function');
    const S3rver = require(entry);
    const server = new S3rver({ address: '127.0.0.1', port: 0, directory: mkdtempSync(join(tmpdir(), 's3w-')), silent: true });
    expect(Array.isArray(server.middleware)).toBe(true);
    expect(server.context).toBeDefined();
    expect(typeof server.run).toBe('function');
    expect(typeof server.close).toBe('function');
  });

  it('answers run with the bound port, close with nothing, and a failure as an error the caller sees', async () => {
    const s3 = await startS3Local(mkdtempSync(join(tmpdir(), 's3w-')));
    try {
      expect(s3.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${s3.endpoint}/`);
      expect(res.status).toBe(200); // s3rver's ListBuckets, through the worker's middleware chain
      await s3.down();
      await expect(fetch(`${s3.endpoint}/`)).rejects.toThrow();
      // The port is taken while the server is down: 'run' fails in the worker, and the caller gets its error.
      const port = Number(new URL(s3.endpoint).port);
      const squatter = createServer();
      await new Promise<void>((ok) => squatter.listen(port, '127.0.0.1', ok));
      try {
        await expect(s3.up()).rejects.toThrow(/^local S3: .*EADDRINUSE/s);
      } finally {
        await new Promise((ok) => squatter.close(ok));
      }
      await s3.up();
      expect((await fetch(`${s3.endpoint}/`)).status).toBe(200);
    } finally {
      await s3.stop();
    }
  });
});
