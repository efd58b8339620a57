import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LambdaHandler } from '#lib/http/endpoint.ts';
import type { Event } from '#lib/http/middleware/state.ts';
import { createRouter } from '#lib/http/router.ts';
import { routes } from '#functions/routes.ts';
import { startTable, type TestTable } from '../../support/dynamo-table.ts';
import { eventOf } from './request.ts';

/**
 * Whatever arrives — any method, path, headers, cookies, query, path parameters and body — the
 * handler stack answers below 500, and every 4xx is `{error, message}`. Real handlers of each auth
 * kind and envelope, against DynamoDB Local (the session and the rate limit are real).
 */
let table: TestTable;
const handlers: Record<string, LambdaHandler> = {};
const SAMPLE = [
  'functions/zk-toolkit/field-add.ts', // public, JSON body, data envelope
  'functions/zk-toolkit/proof-artifact.ts', // public, path parameters
  'functions/bug-reports/create.ts', // optional session, flat envelope
  'functions/storage/share.ts', // session required
  'functions/auth/logout.ts', // auth envelope, cookies
  'functions/zkauth/login.ts', // query, redirects
];

beforeAll(async () => {
  process.env.RATE_LIMIT_MULTIPLIER = '100000';
  table = await startTable();
  for (const file of SAMPLE) handlers[file] = (await import(`../../../${file}`)).handler;
});
afterAll(async () => {
  await table?.stop();
});

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', '__proto__', 'constructor', '%', '\u0000', '😀'),
);
const dict = fc.dictionary(text, text, { maxKeys: 5 });
const hostileJson = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.constantFrom(
    '{"__proto__":{"x":1}}',
    '{"constructor":{"prototype":{}}}',
    '[[[[[[[[[[]]]]]]]]]]',
    '{"a":',
    'null',
    '1e999',
    `{"a":"${'x'.repeat(10_000)}"}`,
  ),
  fc.string({ maxLength: 200 }),
);
const event = fc
  .record({
    method: fc.oneof(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'), fc.string({ maxLength: 8 })),
    path: fc.oneof(fc.webPath(), text),
    headers: fc.record(
      {
        'content-type': fc.constantFrom(
          'application/json',
          'application/json; charset=utf-8',
          'text/plain',
          'multipart/form-data; boundary=x',
          'application/x-www-form-urlencoded',
          '',
        ),
        origin: fc.constantFrom('http://localhost', 'https://evil.example', 'null', ''),
        cookie: text,
      },
      { requiredKeys: [] },
    ),
    extraHeaders: dict,
    cookies: fc.array(fc.oneof(text, fc.constant('shroud_session=abc')), { maxLength: 3 }),
    query: dict,
    params: dict,
    body: fc.option(hostileJson, { nil: undefined }),
    base64: fc.boolean(),
  })
  .map((r): Event => {
    const e = eventOf({
      method: r.method,
      path: r.path,
      headers: { ...r.extraHeaders, ...r.headers },
      cookies: r.cookies,
      query: r.query,
      params: r.params,
      body: r.body,
    });
    e.isBase64Encoded = r.base64;
    return e;
  });

describe('endpoint() under arbitrary requests', () => {
  for (const file of SAMPLE) {
    it(`${file}: never a status ≥ 500, always {error, message} on a 4xx`, async () => {
      await fc.assert(
        fc.asyncProperty(event, async (e) => {
          const res = await handlers[file]!(e);
          const status = res.statusCode ?? 200;
          expect(status).toBeLessThan(500);
          if (status >= 400) {
            const body = JSON.parse(res.body ?? '');
            expect(typeof body.error).toBe('string');
            expect(typeof body.message).toBe('string');
            expect(Object.keys(body).sort()).toEqual(['error', 'message']);
          }
        }),
        { numRuns: 60, seed: 20261123 },
      );
    });
  }
});

describe('the router and the fallback under arbitrary requests', () => {
  const router = createRouter(routes);

  it('never throws; a match is a row of the table with every parameter filled', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 10 }), fc.oneof(fc.webPath(), fc.string({ maxLength: 80 })), (method, path) => {
        const m = router.match(method, path);
        if (m.kind === 'route') {
          expect(routes).toContain(m.route);
          expect(Object.keys(m.params).sort()).toEqual((m.route.path.match(/:\w+/g) ?? []).map((p) => p.slice(1)).sort());
        }
      }),
      { numRuns: 2000, seed: 20261123 },
    );
  });

  it('answers what matches no row with 404 or 405 in the error shape', async () => {
    const { handler } = await import('#functions/fallback.ts');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'), fc.webPath(), async (method, path) => {
        const res = await handler(eventOf({ method, path: `/${path.replace(/^\/+/, '')}` }));
        expect([404, 405]).toContain(res.statusCode);
        const body = JSON.parse(res.body!);
        expect(Object.keys(body).sort()).toEqual(['error', 'message']);
      }),
      { numRuns: 300, seed: 20261123 },
    );
  });
});
