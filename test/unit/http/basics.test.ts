import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseCookies, serializeCookie } from '#lib/http/cookies.ts';
import { describeZodError, toResult } from '#lib/http/endpoint.ts';
import { AppError, errors } from '#lib/errors.ts';
import { parseMultipart } from '#lib/http/multipart.ts';
import { binary, redirect, reply } from '#lib/http/reply.ts';
import { gatewayPath, matchRoute } from '#lib/http/router.ts';
import { routes } from '#functions/routes.ts';

describe('router', () => {
  it('matches every row of the route table to itself', () => {
    for (const r of routes) {
      const path = r.path.replace(/:([A-Za-z_]+)/g, 'x1');
      const m = matchRoute(routes, r.method, path);
      expect(m.kind).toBe('route');
      if (m.kind === 'route') expect(m.route.path.split('/').length).toBe(r.path.split('/').length);
    }
  });

  it('says 405 with the allowed methods for a known path', () => {
    expect(matchRoute(routes, 'PUT', '/api/bug-reports')).toEqual({ kind: 'method', allow: ['GET', 'POST'] });
  });

  it('says none for unknown paths, including a trailing segment', () => {
    expect(matchRoute(routes, 'GET', '/api/init/extra').kind).toBe('none');
    expect(matchRoute(routes, 'GET', '/nothing').kind).toBe('none');
  });

  it('writes path parameters the way API Gateway does', () => {
    expect(gatewayPath('/api/storage/download/:cid')).toBe('/api/storage/download/{cid}');
    expect(gatewayPath('/api/a/:x/:y_z')).toBe('/api/a/{x}/{y_z}');
  });
});

describe('cookies', () => {
  it('sets HttpOnly and SameSite=Lax on every cookie', () => {
    const c = serializeCookie('shroud_session', 'abc', { maxAgeSeconds: 10 });
    expect(c).toMatch(/^shroud_session=abc; Path=\/; Max-Age=10; HttpOnly;( Secure;)? SameSite=Lax$/);
  });

  it('parses back what it serializes, for any value', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 64 }), (value) => {
        const set = serializeCookie('k', value);
        const pair = set.split(';')[0]!;
        expect(parseCookies([pair]).k ?? '').toBe(value);
      }),
    );
  });

  it('never throws on hostile cookie headers, and takes the first of duplicates', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 8 }), fc.string(), (cookies, header) => {
        expect(() => parseCookies(cookies, header)).not.toThrow();
      }),
    );
    expect(parseCookies(['a=1', 'a=2'])).toEqual({ a: '1' });
    expect(parseCookies(undefined, 'a=%E0%A4%A; b=2')).toEqual({ a: '%E0%A4%A', b: '2' });
  });
});

describe('validation messages', () => {
  it('name the field that is wrong', () => {
    const schema = z.object({ title: z.string(), nested: z.object({ n: z.number() }) });
    const out = schema.safeParse({ nested: { n: 'x' } });
    const message = describeZodError('body', out.error!);
    expect(message).toMatch(/^title: /);
    expect(message).toMatch(/nested\.n: /);
  });
});

describe('envelopes and replies', () => {
  it('wraps data per group style', () => {
    expect(JSON.parse(toResult('data', { a: 1 }).body!)).toEqual({ success: true, data: { a: 1 } });
    expect(JSON.parse(toResult('flat', { a: 1 }).body!)).toEqual({ success: true, a: 1 });
    expect(JSON.parse(toResult('auth', { a: 1 }).body!)).toEqual({ a: 1 });
  });

  it('keeps statuses, cookies, bare bodies, binaries and redirects', () => {
    const r = toResult('flat', reply(201, { id: 'x' }, { cookies: ['c=1'] }));
    expect(r.statusCode).toBe(201);
    expect(r.cookies).toEqual(['c=1']);
    expect(JSON.parse(toResult('flat', reply(200, { files: [] }, { bare: true })).body!)).toEqual({ files: [] });
    const b = toResult('flat', binary(Buffer.from([0, 1, 2]), { 'content-disposition': 'attachment' }));
    expect(b.isBase64Encoded).toBe(true);
    expect(Buffer.from(b.body!, 'base64')).toEqual(Buffer.from([0, 1, 2]));
    expect(b.headers!['content-type']).toBe('application/octet-stream');
    const red = toResult('data', redirect('/x'));
    expect(red.statusCode).toBe(302);
    expect(red.headers!.location).toBe('/x');
  });

  it('gives rate-limit and method errors their headers', () => {
    const e = errors.rateLimited(7);
    expect(e).toBeInstanceOf(AppError);
    expect([e.status, e.code, e.headers['retry-after']]).toEqual([429, 'RATE_LIMITED', '7']);
    expect(errors.methodNotAllowed(['GET', 'POST']).headers.allow).toBe('GET, POST');
  });
});

describe('multipart', () => {
  const form = (parts: { name: string; value: string | Buffer; filename?: string }[]) => {
    const boundary = 'XyZboundary';
    const chunks: Buffer[] = [];
    for (const p of parts) {
      const disp = `form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}`;
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disp}\r\n${p.filename ? 'Content-Type: application/octet-stream\r\n' : ''}\r\n`));
      chunks.push(Buffer.isBuffer(p.value) ? p.value : Buffer.from(p.value));
      chunks.push(Buffer.from('\r\n'));
    }
    chunks.push(Buffer.from(`--${boundary}--\r\n`));
    return { type: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(chunks) };
  };
  const collect = async (file: { stream: NodeJS.ReadableStream }) => {
    const parts: Buffer[] = [];
    for await (const c of file.stream) parts.push(c as Buffer);
    return Buffer.concat(parts);
  };

  it('streams the file part and collects the fields', async () => {
    const bytes = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 256));
    const { type, body } = form([
      { name: 'commitment', value: '123' },
      { name: 'file', value: bytes, filename: 'a.bin' },
    ]);
    const out = await parseMultipart(type, body, { maxFileBytes: 10_000, onFile: collect });
    expect(out.fields).toEqual({ commitment: '123' });
    expect(out.files[0]).toEqual(bytes);
  });

  it('stops a file over the limit with 413 FILE_TOO_LARGE', async () => {
    const { type, body } = form([{ name: 'file', value: Buffer.alloc(1001), filename: 'a.bin' }]);
    await expect(parseMultipart(type, body, { maxFileBytes: 1000, onFile: collect })).rejects.toMatchObject({ code: 'FILE_TOO_LARGE', status: 413 });
  });

  it('refuses what is not multipart, and never hangs on garbage', async () => {
    await expect(parseMultipart('application/json', Buffer.from('{}'), { maxFileBytes: 10, onFile: collect })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), async (junk) => {
        const out = await parseMultipart('multipart/form-data; boundary=XyZboundary', Buffer.from(junk), { maxFileBytes: 100, onFile: collect }).then(
          () => 'ok',
          (e) => (e as AppError).code,
        );
        expect(['ok', 'INVALID_INPUT', 'FILE_TOO_LARGE']).toContain(out);
      }),
      { numRuns: 200 },
    );
  });

  it('reads non-ASCII file names as UTF-8', async () => {
    const names: string[] = [];
    const { type, body } = form([{ name: 'file', value: Buffer.from('x'), filename: 'résumé 履歴書 😀.pdf' }]);
    await parseMultipart(type, body, { maxFileBytes: 100, onFile: async (f) => names.push(f.filename) && collect(f) });
    expect(names).toEqual(['résumé 履歴書 😀.pdf']);
  });

  it('refuses more fields or files than allowed with 400 naming the limit, instead of dropping them', async () => {
    const many = form(Array.from({ length: 33 }, (_, i) => ({ name: `f${i}`, value: 'v' })));
    await expect(parseMultipart(many.type, many.body, { maxFileBytes: 100, onFile: collect })).rejects.toMatchObject({
      status: 400,
      code: 'INVALID_INPUT',
      message: 'body: at most 32 fields',
    });
    const two = form([
      { name: 'file', value: Buffer.from('a'), filename: 'a' },
      { name: 'file', value: Buffer.from('b'), filename: 'b' },
    ]);
    await expect(parseMultipart(two.type, two.body, { maxFileBytes: 100, onFile: collect })).rejects.toMatchObject({
      status: 400,
      message: 'file: only one file part is accepted',
    });
  });
});
