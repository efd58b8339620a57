import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { AppError, errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import type { SessionLookup, Session } from '#lib/data/sessions.ts';
import { requestContext } from '#lib/http/middleware/request-context.ts';
import { requestLog } from '#lib/http/middleware/request-log.ts';
import { originAllowed, originCheck } from '#lib/http/middleware/origin.ts';
import { sessionLoader, sessionRequired } from '#lib/http/middleware/session.ts';
import { rateLimit } from '#lib/http/middleware/rate-limit.ts';
import { jsonBody } from '#lib/http/middleware/json-body.ts';
import { validation } from '#lib/http/middleware/validation.ts';
import { envelope } from '#lib/http/middleware/envelope.ts';
import { errorResponse } from '#lib/http/middleware/error-response.ts';
import { binary, redirect, reply } from '#lib/http/reply.ts';
import type { Result } from '#lib/http/middleware/state.ts';
import { securityHeaders } from '#lib/http/middleware/security-headers.ts';
import { securityHeaders as baseSecurityHeaders } from '#lib/http/security-headers.ts';
import { idempotency, requestFingerprint } from '#lib/http/middleware/idempotency.ts';
import { ClaimLost, type Claim } from '#lib/data/idempotency.ts';
import { eventOf, requestOf, routeOf, run } from './request.ts';

/** Each middleware of the handler stack, called directly: no HTTP, no DynamoDB. */
afterEach(() => vi.restoreAllMocks());

const session = (userId: string): Session => ({ hash: 'h', userId, method: 'password', createdAt: 0, idleExpiresAt: 9e9, absoluteExpiresAt: 9e9 });

describe('requestContext', () => {
  it('starts the state: the route, API Gateway request id, lower-cased headers, the IP as client', async () => {
    const route = routeOf();
    const request = requestOf(route, eventOf({ headers: { 'Content-Type': 'application/json', Origin: 'http://a' } }));
    request.internal = {} as never;
    await run(requestContext(route), 'before', request);
    expect(request.internal).toMatchObject({
      route,
      requestId: 'req-1',
      headers: { 'content-type': 'application/json', origin: 'http://a' },
      client: { ip: '192.0.2.7', key: 'ip:192.0.2.7' },
      session: null,
      sessionState: 'none',
    });
  });

  it('makes a request id when API Gateway gave none', async () => {
    const route = routeOf();
    const event = eventOf();
    event.requestContext.requestId = '';
    const request = requestOf(route, event);
    await run(requestContext(route), 'before', request);
    expect(request.internal.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('requestLog', () => {
  it('sends X-Request-Id and logs route, status, duration and code, never the body or cookies', async () => {
    const info = vi.spyOn(logger, 'info').mockImplementation(() => {});
    const request = requestOf(routeOf(), eventOf({ method: 'POST', body: '{"password":"hunter2"}', cookies: ['shroud_session=secret'] }));
    request.response = { statusCode: 201, body: '{}' };
    await run(requestLog(), 'after', request);
    expect(request.response.headers).toMatchObject({ 'x-request-id': 'req-1' });
    const [, entry] = info.mock.calls[0]!;
    expect(entry).toMatchObject({ requestId: 'req-1', method: 'POST', route: '/api/x', status: 201 });
    expect(JSON.stringify(info.mock.calls)).not.toMatch(/hunter2|secret/);
  });

  it('logs a 5xx as an error with its cause, and a 4xx with its code', async () => {
    const error = vi.spyOn(logger, 'error').mockImplementation(() => {});
    const info = vi.spyOn(logger, 'info').mockImplementation(() => {});
    const failed = requestOf(routeOf());
    failed.error = new Error('disk on fire');
    failed.response = { statusCode: 500 };
    await run(requestLog(), 'onError', failed);
    expect(error).toHaveBeenCalledWith('request failed', expect.objectContaining({ status: 500, error: failed.error }));
    const refused = requestOf(routeOf());
    refused.error = errors.invalidInput('x');
    refused.response = { statusCode: 400 };
    await run(requestLog(), 'onError', refused);
    expect(info).toHaveBeenCalledWith('request', expect.objectContaining({ status: 400, code: 'INVALID_INPUT' }));
  });

  it('does not build the request line when the log level drops it, and still writes a 5xx', async () => {
    const info = vi.spyOn(logger, 'info').mockImplementation(() => {});
    const error = vi.spyOn(logger, 'error').mockImplementation(() => {});
    const before = logger.getLevelName();
    logger.setLogLevel('ERROR');
    try {
      const ok = requestOf(routeOf());
      ok.response = { statusCode: 200 };
      await run(requestLog(), 'after', ok);
      expect(info).not.toHaveBeenCalled();
      expect(ok.response.headers).toMatchObject({ 'x-request-id': expect.any(String) });
      const failed = requestOf(routeOf());
      failed.error = new Error('disk on fire');
      failed.response = { statusCode: 500 };
      await run(requestLog(), 'onError', failed);
      expect(error).toHaveBeenCalledWith('request failed', expect.objectContaining({ status: 500 }));
    } finally {
      logger.setLogLevel(before as 'INFO');
    }
  });
});

describe('originCheck', () => {
  const foreign = { origin: 'https://evil.example' };

  it('refuses a write from a foreign origin with 403, and lets a read through unshared', async () => {
    const post = requestOf(routeOf({ method: 'POST' }), eventOf({ method: 'POST', headers: foreign }));
    expect(await run(originCheck(), 'before', post)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    const get = requestOf(routeOf({ method: 'GET' }), eventOf({ headers: foreign }));
    expect(await run(originCheck(), 'before', get)).toBeUndefined();
    get.response = { statusCode: 200 };
    await run(originCheck(), 'after', get);
    expect(get.response.headers?.['access-control-allow-origin']).toBeUndefined();
  });

  it('trusts configuration only, never X-Forwarded-Host or Host', async () => {
    const post = requestOf(
      routeOf({ method: 'POST' }),
      eventOf({ method: 'POST', headers: { origin: 'https://evil.example', 'x-forwarded-host': 'evil.example', host: 'evil.example' } }),
    );
    expect(await run(originCheck(), 'before', post)).toMatchObject({ status: 403 });
    expect(originAllowed('https://evil.example', { CORS_ORIGINS: ['https://app.example'], PUBLIC_BASE_URL: 'https://api.example' } as never)).toBe(false);
    expect(originAllowed('https://app.example', { CORS_ORIGINS: ['https://app.example'], PUBLIC_BASE_URL: undefined } as never)).toBe(true);
    expect(originAllowed('https://api.example', { CORS_ORIGINS: [], PUBLIC_BASE_URL: 'https://api.example/base' } as never)).toBe(true);
  });
});

describe('sessionLoader and sessionRequired', () => {
  it('does not read the session for public routes', async () => {
    const load = vi.fn(async (): Promise<SessionLookup> => ({ state: 'none' }));
    const request = requestOf(routeOf({ auth: 'none' }), eventOf({ cookies: ['shroud_session=abc'] }));
    await run(sessionLoader(load), 'before', request);
    expect(load).not.toHaveBeenCalled();
    expect(request.internal.cookies).toEqual({ shroud_session: 'abc' });
  });

  it('reads it once, and counts the client as the user when signed in', async () => {
    const load = vi.fn(async (): Promise<SessionLookup> => ({ state: 'active', session: session('u1') }));
    const request = requestOf(routeOf({ auth: 'optional' }), eventOf({ cookies: ['shroud_session=abc'] }));
    await run(sessionLoader(load), 'before', request);
    expect(load).toHaveBeenCalledTimes(1);
    expect(load).toHaveBeenCalledWith('abc');
    expect(request.internal).toMatchObject({ sessionState: 'active', client: { key: 'user:u1' } });
  });

  it('answers 401 UNAUTHENTICATED without a session and SESSION_EXPIRED for an expired one, on session routes only', async () => {
    const none = requestOf(routeOf({ auth: 'session' }));
    expect(await run(sessionRequired(), 'before', none)).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    const expired = requestOf(routeOf({ auth: 'session' }));
    expired.internal.sessionState = 'expired';
    expect(await run(sessionRequired(), 'before', expired)).toMatchObject({ status: 401, code: 'SESSION_EXPIRED' });
    expect(await run(sessionRequired(), 'before', requestOf(routeOf({ auth: 'optional' })))).toBeUndefined();
  });
});

describe('rateLimit', () => {
  it('counts the group per client, 429 with Retry-After when over, headers on every answer', async () => {
    const hit = vi.fn(async () => ({ limit: 5, remaining: 0, reset: 17, exceeded: true }));
    const request = requestOf(routeOf({ group: 'auth' }));
    const err = await run(rateLimit(hit), 'before', request);
    expect(hit).toHaveBeenCalledWith('auth', 'ip:192.0.2.7', 20);
    expect(err).toMatchObject({ status: 429, code: 'RATE_LIMITED', headers: { 'retry-after': '17' } });
    await run(rateLimit(hit), 'onError', request);
    expect(request.response?.headers).toMatchObject({ 'ratelimit-limit': '5', 'ratelimit-remaining': '0', 'ratelimit-reset': '17' });
  });
});

describe('jsonBody', () => {
  it('parses JSON bodies, refuses malformed ones with 400, and leaves other types raw', async () => {
    const ok = requestOf(routeOf(), eventOf({ method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' }));
    await run(jsonBody(), 'before', ok);
    expect(ok.event.body).toEqual({ a: 1 });
    const bad = requestOf(routeOf(), eventOf({ method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' }));
    expect(await run(jsonBody(), 'before', bad)).toMatchObject({ status: 400, message: 'body: malformed JSON' });
    const raw = requestOf(routeOf(), eventOf({ method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"a":1}' }));
    await run(jsonBody(), 'before', raw);
    expect(raw.event.body).toBe('{"a":1}');
  });
});

describe('validation', () => {
  const spec = { body: z.object({ a: z.string() }), query: z.object({ n: z.coerce.number().int().optional() }), params: z.object({ id: z.uuid() }) };

  it('names the field that failed', async () => {
    const request = requestOf(routeOf(), eventOf({ method: 'POST', params: { id: 'nope' } }));
    request.event.body = { a: 'x' } as never;
    expect(await run(validation(spec), 'before', request)).toMatchObject({ status: 400, code: 'INVALID_INPUT', message: expect.stringMatching(/^id: /) });
    request.event.body = { a: 1 } as never;
    request.event.pathParameters = { id: crypto.randomUUID() };
    expect(await run(validation(spec), 'before', request)).toMatchObject({ message: expect.stringMatching(/^a: /) });
  });

  it('refuses a body that was not sent as JSON, and hands the parsed input on', async () => {
    const text = requestOf(routeOf(), eventOf({ method: 'POST', body: 'a=1' }));
    expect(await run(validation(spec), 'before', text)).toMatchObject({ status: 400, message: expect.stringMatching(/must be JSON/) });
    const id = crypto.randomUUID();
    const ok = requestOf(routeOf(), eventOf({ method: 'POST', params: { id }, query: { n: '3' } }));
    ok.event.body = { a: 'x', extra: true } as never;
    await run(validation(spec), 'before', ok);
    expect(ok.internal.input).toEqual({ body: { a: 'x' }, query: { n: 3 }, params: { id } });
  });
});

describe('envelope', () => {
  const shaped = async (group: 'zkauth' | 'storage' | 'auth', out: unknown) => {
    const request = requestOf(routeOf({ group }));
    request.response = out as never;
    await run(envelope(), 'after', request);
    return request.response as unknown as Result;
  };

  it("puts plain data in the group's envelope", async () => {
    expect(JSON.parse((await shaped('zkauth', { a: 1 })).body!)).toEqual({ success: true, data: { a: 1 } });
    expect(JSON.parse((await shaped('storage', { a: 1 })).body!)).toEqual({ success: true, a: 1 });
    expect(JSON.parse((await shaped('auth', { a: 1 })).body!)).toEqual({ a: 1 });
  });

  it('sends Replies as given: status, cookies, bare bodies, binary, redirects', async () => {
    const created = await shaped('storage', reply(201, { id: 'x' }, { cookies: ['c=1'] }));
    expect(created).toMatchObject({ statusCode: 201, cookies: ['c=1'] });
    expect(JSON.parse(created.body!)).toEqual({ success: true, id: 'x' });
    expect(JSON.parse((await shaped('storage', reply(200, { x: 1 }, { bare: true }))).body!)).toEqual({ x: 1 });
    expect(await shaped('storage', binary(Buffer.from('hi'), { 'content-disposition': 'attachment' }))).toMatchObject({
      isBase64Encoded: true,
      body: Buffer.from('hi').toString('base64'),
    });
    expect(await shaped('auth', redirect('/next'))).toMatchObject({ statusCode: 302, headers: { location: '/next' } });
  });
});

describe('errorResponse', () => {
  const answer = async (e: unknown) => {
    const request = requestOf(routeOf());
    request.error = e as Error;
    await run(errorResponse(), 'onError', request);
    return { response: request.response!, error: request.error };
  };

  it('lets AppErrors speak, with their headers', async () => {
    const { response } = await answer(errors.rateLimited(9));
    expect(response).toMatchObject({ statusCode: 429, headers: { 'retry-after': '9', 'content-type': 'application/json' } });
    expect(JSON.parse(response.body!)).toEqual({ error: 'RATE_LIMITED', message: 'rate limit exceeded; retry after 9 s' });
  });

  it('hides everything else behind 500 INTERNAL, keeping the cause for the log', async () => {
    const cause = new Error('secret connection string');
    const { response, error } = await answer(cause);
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body!)).toEqual({ error: 'INTERNAL', message: 'internal error' });
    expect(response.body).not.toMatch(/secret/);
    expect(error).toBe(cause);
  });

  it('turns a stray ZodError into 400 naming the field', async () => {
    const zerr = z.object({ a: z.string() }).safeParse({}).error!;
    const { response, error } = await answer(zerr);
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body!).message).toMatch(/^a: /);
    expect(error).toBeInstanceOf(AppError);
  });
});

describe('securityHeaders', () => {
  it('puts nosniff, a deny-all CSP and no-store on every answer of a session route, errors included', async () => {
    const request = requestOf(routeOf({ auth: 'optional' }));
    request.response = { statusCode: 200, headers: { 'cache-control': 'max-age=60' } };
    await run(securityHeaders(), 'after', request);
    expect(request.response.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'content-security-policy': expect.stringContaining("default-src 'none'"),
      'cache-control': 'no-store',
    });
    const failed = requestOf(routeOf({ auth: 'none' }));
    await run(securityHeaders(), 'onError', failed);
    expect(failed.response?.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
  });

  it("lets a public answer keep its handler's cache policy, but never one that sets a cookie", async () => {
    const artifact = requestOf(routeOf({ auth: 'none' }));
    artifact.response = { statusCode: 200, headers: { 'cache-control': 'public, max-age=3600' } };
    await run(securityHeaders(), 'after', artifact);
    expect(artifact.response.headers?.['cache-control']).toBe('public, max-age=3600');
    const cookie = requestOf(routeOf({ auth: 'none' }));
    cookie.response = { statusCode: 200, headers: { 'cache-control': 'public' }, cookies: ['a=1'] };
    await run(securityHeaders(), 'after', cookie);
    expect(cookie.response.headers?.['cache-control']).toBe('no-store');
  });

  it('sends HSTS only where the API is served over HTTPS', () => {
    expect(baseSecurityHeaders({ PUBLIC_BASE_URL: 'https://api.example' })['strict-transport-security']).toMatch(/max-age=\d+/);
    expect(baseSecurityHeaders({ PUBLIC_BASE_URL: 'http://localhost:3000' })['strict-transport-security']).toBeUndefined();
  });
});

describe('idempotency', () => {
  const store = () => ({
    claim: vi.fn(async (): Promise<Claim> => ({ kind: 'claimed', owner: 'attempt-1' })),
    complete: vi.fn(async () => {}),
    release: vi.fn(async () => {}),
  });
  const keyed = (key: string | undefined, over: Partial<Parameters<typeof routeOf>[0]> = {}) =>
    requestOf(routeOf({ idempotent: true, ...over }), eventOf({ method: 'POST', headers: key ? { 'idempotency-key': key } : {}, body: '{"a":1}' }));

  it('does nothing without the header or on a route that takes none', async () => {
    const s = store();
    await run(idempotency(s), 'before', keyed(undefined));
    await run(idempotency(s), 'before', requestOf(routeOf(), eventOf({ method: 'POST', headers: { 'idempotency-key': 'k' } })));
    expect(s.claim).not.toHaveBeenCalled();
  });

  it('claims per client and route, keeps a success, releases a failure', async () => {
    const s = store();
    const ok = keyed('k1');
    await run(idempotency(s), 'before', ok);
    expect(s.claim).toHaveBeenCalledWith('ip:192.0.2.7|POST /api/x', 'k1', expect.stringMatching(/^[0-9a-f]{64}$/), 15);
    ok.response = { statusCode: 201, headers: { 'content-type': 'application/json' }, body: '{"id":1}', cookies: ['s=secret'] };
    await run(idempotency(s), 'after', ok);
    expect(s.complete).toHaveBeenCalledWith('ip:192.0.2.7|POST /api/x', 'k1', expect.any(String), {
      statusCode: 201,
      headers: { 'content-type': 'application/json' },
      body: '{"id":1}',
      isBase64Encoded: undefined,
    });
    const failed = keyed('k2');
    await run(idempotency(s), 'before', failed);
    await run(idempotency(s), 'onError', failed);
    expect(s.release).toHaveBeenCalledTimes(1);
  });

  it('answers what this attempt did when the key is no longer its own to complete (settled by the journal, or taken over) or the store fails: never a 500', async () => {
    const s = store();
    s.complete.mockRejectedValueOnce(new ClaimLost());
    const ok = keyed('k1');
    await run(idempotency(s), 'before', ok);
    ok.response = { statusCode: 202, headers: { 'content-type': 'application/json' }, body: '{"status":"submitted"}' };
    expect(await run(idempotency(s), 'after', ok)).toBeUndefined();
    expect(ok.response).toEqual({ statusCode: 202, headers: { 'content-type': 'application/json' }, body: '{"status":"submitted"}' });
    // Any other failure of the store (DynamoDB down): the answer stands too, and the key is not
    // released (a retry with it would do the work again: a second transaction for a value move).
    s.complete.mockRejectedValueOnce(new Error('boom'));
    const other = keyed('k2');
    await run(idempotency(s), 'before', other);
    other.response = { statusCode: 200, body: '{}' };
    expect(await run(idempotency(s), 'after', other)).toBeUndefined();
    expect(other.response).toEqual({ statusCode: 200, body: '{}' });
    expect(s.release).not.toHaveBeenCalled();
  });

  it('replays the first answer marked as such; 422 for another request; 409 while it runs', async () => {
    const s = store();
    s.claim.mockResolvedValueOnce({ kind: 'replay', response: { statusCode: 201, headers: {}, body: '{"id":1}' } });
    const again = keyed('k');
    await run(idempotency(s), 'before', again);
    expect(again.internal.replayed).toEqual({ statusCode: 201, headers: { 'idempotent-replayed': 'true' }, body: '{"id":1}' });
    s.claim.mockResolvedValueOnce({ kind: 'mismatch' });
    expect(await run(idempotency(s), 'before', keyed('k'))).toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
    s.claim.mockResolvedValueOnce({ kind: 'in_progress', retryAfter: 7 });
    expect(await run(idempotency(s), 'before', keyed('k'))).toMatchObject({ status: 409, headers: { 'retry-after': '7' } });
    expect(await run(idempotency(s), 'before', keyed('bad key'))).toMatchObject({ status: 400 });
  });

  it('fingerprints a multipart body without its boundary', () => {
    const body = (b: string) => `--${b}\r\ncontent-disposition: form-data; name="a"\r\n\r\n1\r\n--${b}--\r\n`;
    const fp = (b: string, content = body(b)) =>
      requestFingerprint(eventOf({ method: 'POST', path: '/api/x', body: content }), `multipart/form-data; boundary=${b}`);
    expect(fp('AAA')).toBe(fp('BBBBBB'));
    expect(fp('AAA')).not.toBe(fp('AAA', body('AAA').replace('\r\n1\r\n', '\r\n2\r\n')));
  });
});
