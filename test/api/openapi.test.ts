/**
 * The OpenAPI document: generated (never by hand) and current, valid OpenAPI 3.1, served with its
 * reference page; every route declares its success answers; and the API tests' response check
 * (test/support/response-check.ts) refuses answers that differ from it.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#functions/routes.ts';
import { openApiPath } from '#lib/openapi/document.ts';
import { checkResponse } from '../support/response-check.ts';
import { HttpClient, startTestRuntime, type TestRuntime } from '../support/runtime.ts';

const root = new URL('../../', import.meta.url);
const committed = JSON.parse(readFileSync(new URL('functions/docs/openapi.json', root), 'utf8')) as {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, { properties: { error: { enum: string[] } } }> };
};

/** What the generator says in a process of its own (it loads every handler module): is the file current, which routes lack a 2xx schema. */
let report: { current: boolean; missing: string[] };
let rt: TestRuntime;
let c: HttpClient;
beforeAll(async () => {
  const run = promisify(execFile)(new URL('node_modules/.bin/tsx', root).pathname, ['functions/openapi.ts', '--report'], {
    cwd: root.pathname,
    timeout: 120_000,
  });
  rt = await startTestRuntime();
  c = rt.client();
  report = JSON.parse((await run).stdout.trim().split('\n').pop()!);
}, 180_000);
afterAll(() => rt?.stop());

describe('the OpenAPI document', () => {
  it('is what the code generates (run `npm run openapi` after changing a route or a schema)', () => {
    expect(report.current).toBe(true);
  });

  it('every route declares the schema of its success answers (responses: {2xx: schema} in its spec)', () => {
    expect(report.missing, `routes without a declared 2xx schema:\n${report.missing.join('\n')}`).toEqual([]);
  });

  it('is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)', async () => {
    const result = await new Validator().validate(committed as never);
    expect(result.errors ?? [], JSON.stringify(result.errors)?.slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(committed.openapi).toBe('3.1.0');
  });

  it('has every route of the table, the session cookie scheme, rate-limit headers and Idempotency-Key where taken', () => {
    for (const r of routes) {
      const op = committed.paths[openApiPath(r.path)]?.[r.method.toLowerCase()] as
        | ({ responses: Record<string, unknown> } & Record<string, unknown>)
        | undefined;
      expect(op, `${r.method} ${r.path}`).toBeDefined();
      const params = JSON.stringify(op!.parameters);
      expect(params.includes('IdempotencyKey'), `${r.method} ${r.path} Idempotency-Key`).toBe(!!r.idempotent);
      // an optional session needs none (no lock in the reference); `x-session: optional` says the cookie is read when sent
      expect(JSON.stringify(op!.security)).toBe(r.auth === 'session' ? '[{"session":[]}]' : '[]');
      expect(op!['x-session']).toBe(r.auth === 'optional' ? 'optional' : undefined);
      expect(JSON.stringify(op!.responses['429'])).toContain('Error429');
    }
    expect(committed.components.securitySchemes.session).toEqual(expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'shroud_session' }));
    expect(JSON.stringify(committed.paths['/api/init']!.get!.responses['200'])).toContain('RateLimitRemaining');
    expect(committed.components.schemas.Error429!.properties.error.enum).toContain('RATE_LIMITED');
  });
});

describe('served', () => {
  it('GET /api/openapi.json is the generated document', async () => {
    const res = await c.get('/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.json).toEqual(committed);
  });

  it('GET /api/docs is the reference page, its scripts served by us under a policy that allows only them', async () => {
    const page = await c.get('/api/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.res.text();
    expect(html).not.toMatch(/https?:\/\//); // no CDN
    for (const src of [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)) {
      const asset = await c.get(src);
      expect(asset.status, src).toBe(200);
      expect((await asset.res.arrayBuffer()).byteLength, src).toBeGreaterThan(100);
    }
    expect((await c.get('/api/docs/package.json')).status).toBe(400);
  });

  it('pages tied to a session keep the deny-all policy', async () => {
    const res = await c.get('/api/auth/session');
    expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
  });
});

describe('the response check', () => {
  const url = (p: string) => new URL(p, 'http://localhost');
  it('passes what the document says', async () => {
    await checkResponse('POST', url('/api/zk-toolkit/field/add'), 200, 'application/json', { success: true, data: { result: '3' } });
    await checkResponse('GET', url('/api/nowhere'), 404, 'application/json', { error: 'NOT_FOUND', message: 'no route' });
  });

  it('refuses a body that differs from the declared schema, naming route, status and field', async () => {
    await expect(checkResponse('POST', url('/api/zk-toolkit/field/add'), 200, 'application/json', { success: true, data: { result: 3 } })).rejects.toThrow(
      /POST \/api\/zk-toolkit\/field\/add → 200.*\/data\/result must be string/,
    );
    await expect(
      checkResponse('GET', url('/api/auth/me'), 200, 'application/json', { user: { id: 'u', zkId: null, username: 'x', extra: 1 } }),
    ).rejects.toThrow(/must NOT have additional properties 'extra'/);
  });

  it('refuses an undeclared success status, an error code of another status, and an error that is not {error, message}', async () => {
    await expect(checkResponse('POST', url('/api/zk-toolkit/field/add'), 201, 'application/json', { success: true, data: { result: '3' } })).rejects.toThrow(
      /not among the declared/,
    );
    await expect(checkResponse('GET', url('/api/auth/me'), 401, 'application/json', { error: 'NOT_FOUND', message: 'x' })).rejects.toThrow(/Error401/);
    await expect(checkResponse('GET', url('/api/auth/me'), 401, 'application/json', { error: 'UNAUTHENTICATED' })).rejects.toThrow(/message/);
    await expect(checkResponse('GET', url('/api/auth/me'), 418, 'application/json', { error: 'TEAPOT', message: 'x' })).rejects.toThrow(/no error code/);
    await expect(checkResponse('GET', url('/api/auth/me'), 500, 'text/html', undefined)).rejects.toThrow(/must be JSON/);
  });

  it('runs on every answer the HttpClient receives', async () => {
    // A server that answers a toolkit route with a number where the document says a string.
    const server = createServer((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: true, data: { result: 3 } }));
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      const wrong = new HttpClient(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
      await expect(wrong.post('/api/zk-toolkit/field/add', { a: '1', b: '2' })).rejects.toThrow(/response check: POST \/api\/zk-toolkit\/field\/add → 200/);
    } finally {
      server.close();
    }
    const res = await c.post('/api/zk-toolkit/field/add', { a: '1', b: '2' });
    expect(res.json).toEqual({ success: true, data: { result: '3' } });
  });
});
