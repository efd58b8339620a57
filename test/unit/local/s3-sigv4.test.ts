import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import fc from 'fast-check';
import { createRequire } from 'node:module';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const { checkSigV4 } = createRequire(import.meta.url)('#lib/local/s3-sigv4.cjs') as {
  checkSigV4: (req: Captured, secretOf: (id: string) => string | undefined, nowMs: number) => { accessKeyId: string } | null;
};

interface Captured {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

const SECRET = 'local-secret';
const secretOf = (id: string) => (id === 'LOCALKEY' ? SECRET : undefined);
const codeOf = (f: () => unknown) => {
  try {
    f();
    return 'ok';
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
};

// Requests as the SDK puts them on the wire, caught by a server that only records them.
let server: Server;
let endpoint: string;
let client: S3Client;
let last: Captured | undefined;
beforeAll(async () => {
  server = createServer((req, res) => {
    last = { method: req.method!, url: req.url!, headers: req.headers };
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/xml' }).end());
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  client = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'LOCALKEY', secretAccessKey: SECRET },
    maxAttempts: 1,
  });
});
afterAll(async () => {
  client.destroy();
  await new Promise((ok) => server.close(ok));
});

const presignedRequest = (url: string, method: string, headers: Record<string, string> = {}): Captured => {
  const u = new URL(url);
  return { method, url: u.pathname + u.search, headers: { host: u.host, ...headers } };
};

// Keys and header values with what the encodings disagree on: spaces, +, %, unicode, reserved characters.
const key = fc
  .string({
    unit: fc.constantFrom('a', 'Z', '0', ' ', '+', '%', '/', '=', '&', '~', '*', "'", '(', 'é', '✓', '😀', '-', '_', '.'),
    minLength: 1,
    maxLength: 24,
  })
  .filter((k) => !k.startsWith('/') && !k.includes('//') && !k.endsWith('/') && !k.split('/').some((seg) => seg === '.' || seg === '..'));
// (Dot segments are left out: URL handling removes them on the way, so no client can sign them as sent.)
const text = fc.string({ unit: fc.constantFrom('a', ' ', '+', '%', '"', ';', '=', 'é', '✓', '\\'), maxLength: 16 });
// Header values are ASCII on the wire (Node sends a string's code units as bytes; S3 wants others RFC 2047-encoded).
const asciiText = fc.string({ unit: fc.constantFrom('a', ' ', '+', '%', '"', ';', '=', '\\', '~'), maxLength: 16 });

describe("checkSigV4 (the local S3 servers' signature check)", () => {
  it('accepts what the SDK signs (headers and presigned URLs), whatever the key and query, and refuses any change to it', async () => {
    await fc.assert(
      fc.asyncProperty(key, asciiText, text, fc.nat({ max: 2000 }), async (k, header, disposition, size) => {
        // Header-signed, as the SDK sends every call.
        last = undefined;
        await client.send(
          new PutObjectCommand({ Bucket: 'bucket', Key: k, Body: new Uint8Array(size), ContentLength: size, ContentDisposition: header.trim() || undefined }),
        );
        const sent = last!;
        expect(codeOf(() => checkSigV4(sent, secretOf, Date.now()))).toBe('ok');
        expect(codeOf(() => checkSigV4({ ...sent, method: 'POST' }, secretOf, Date.now()))).toBe('SignatureDoesNotMatch');
        expect(codeOf(() => checkSigV4({ ...sent, url: sent.url.replace('/bucket/', '/bucket2/') }, secretOf, Date.now()))).toBe('SignatureDoesNotMatch');
        expect(codeOf(() => checkSigV4({ ...sent, headers: { ...sent.headers, 'x-amz-date': '20200101T000000Z' } }, secretOf, Date.now()))).not.toBe('ok');
        expect(codeOf(() => checkSigV4(sent, () => 'other-secret', Date.now()))).toBe('SignatureDoesNotMatch');

        // Presigned, with a query the SDK encodes (response-content-disposition) and signed headers.
        const get = await getSignedUrl(
          client,
          new GetObjectCommand({ Bucket: 'bucket', Key: k, ResponseContentDisposition: `attachment; filename="${disposition}"` }),
          { expiresIn: 300 },
        );
        expect(codeOf(() => checkSigV4(presignedRequest(get, 'GET'), secretOf, Date.now()))).toBe('ok');
        const tampered = get.replace(/response-content-disposition=[^&]*/, 'response-content-disposition=inline');
        expect(codeOf(() => checkSigV4(presignedRequest(tampered, 'GET'), secretOf, Date.now()))).toBe('SignatureDoesNotMatch');
        expect(codeOf(() => checkSigV4(presignedRequest(get, 'GET'), secretOf, Date.now() + 301_000))).toBe('AccessDenied');

        const put = await getSignedUrl(client, new PutObjectCommand({ Bucket: 'bucket', Key: k, ContentLength: size, IfNoneMatch: '*' }), {
          expiresIn: 300,
          signableHeaders: new Set(['content-length', 'if-none-match']),
        });
        const headers = { 'content-length': String(size), 'if-none-match': '*' };
        expect(codeOf(() => checkSigV4(presignedRequest(put, 'PUT', headers), secretOf, Date.now()))).toBe('ok');
        expect(codeOf(() => checkSigV4(presignedRequest(put, 'PUT', { 'content-length': String(size + 1), 'if-none-match': '*' }), secretOf, Date.now()))).toBe(
          'SignatureDoesNotMatch',
        );
        expect(codeOf(() => checkSigV4(presignedRequest(put, 'PUT', { 'content-length': String(size) }), secretOf, Date.now()))).toBe('SignatureDoesNotMatch');
      }),
      { numRuns: 150 },
    );
  });

  it("leaves unsigned and V2 requests to s3rver, and answers malformed V4 ones with S3's codes", () => {
    expect(checkSigV4({ method: 'GET', url: '/b/k', headers: { host: 'h' } }, secretOf, Date.now())).toBeNull();
    expect(checkSigV4({ method: 'GET', url: '/b/k?AWSAccessKeyId=x&Signature=y&Expires=1', headers: { host: 'h' } }, secretOf, Date.now())).toBeNull();
    expect(
      codeOf(() =>
        checkSigV4(
          { method: 'GET', url: '/b/k', headers: { host: 'h', authorization: 'AWS4-HMAC-SHA256 Credential=LOCALKEY/20261126/us-east-1/s3/aws4_request' } },
          secretOf,
          Date.now(),
        ),
      ),
    ).toBe('AuthorizationHeaderMalformed');
    expect(
      codeOf(() =>
        checkSigV4({ method: 'GET', url: '/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=x', headers: { host: 'h' } }, secretOf, Date.now()),
      ),
    ).toBe('AuthorizationQueryParametersError');
    expect(codeOf(() => checkSigV4({ method: 'GET', url: '/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA1', headers: { host: 'h' } }, secretOf, Date.now()))).toBe(
      'AuthorizationQueryParametersError',
    );
    const unknownKey =
      '/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=NOBODY%2F20261126%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261126T000000Z&X-Amz-Expires=60&X-Amz-SignedHeaders=host&X-Amz-Signature=00';
    expect(codeOf(() => checkSigV4({ method: 'GET', url: unknownKey, headers: { host: 'h' } }, secretOf, Date.UTC(2026, 10, 26)))).toBe('InvalidAccessKeyId');
    expect(
      codeOf(() =>
        checkSigV4({ method: 'GET', url: unknownKey.replace('Expires=60', 'Expires=604801'), headers: { host: 'h' } }, secretOf, Date.UTC(2026, 10, 26)),
      ),
    ).toBe('AuthorizationQueryParametersError');
  });
});
