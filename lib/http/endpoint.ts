import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { groups } from './groups.ts';
import type { Route } from './route.ts';
import { config } from '#lib/config.ts';
import { loadSession, type Session } from '#lib/data/sessions.ts';
import { parseCookies, SESSION_COOKIE } from './cookies.ts';
import { envelope } from './envelope.ts';
import { AppError, errors, isAppError } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { hit, rateLimitHeaders, type RateLimitState } from './rate-limit.ts';
import { Reply } from './reply.ts';
import { describeZodError, parseWith } from './validation.ts';

export { describeZodError, parseWith };
import { rawBodyOf } from './raw-body.ts';

export type Event = APIGatewayProxyEventV2;
export type Result = APIGatewayProxyStructuredResultV2;

export interface Spec<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType> {
  /** JSON body schema. Omit for routes without a JSON body (GET, multipart, binary). */
  body?: B;
  query?: Q;
  params?: P;
}

export interface Req<B = unknown, Q = unknown, P = unknown> {
  event: Event;
  route: Route;
  body: B;
  query: Q;
  params: P;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  cookies: Record<string, string>;
  /** The live session, or null (see `sessionState` for expired). */
  session: Session | null;
  sessionState: 'none' | 'expired' | 'active';
  client: { ip: string; key: string };
  requestId: string;
  /** The raw request bytes (multipart and binary uploads). */
  rawBody(): Buffer;
}

interface Internal {
  started: number;
  requestId: string;
  headers: Record<string, string>;
  rate?: RateLimitState;
  req: Partial<Req>;
  [k: string]: unknown;
}

type MwRequest = middy.Request<Event, Result, Error, Context, Internal>;

/** The middlewares' findings (session, client, headers) handed to the handler function. */
const state = new WeakMap<Event, Internal>();

const lowerHeaders = (h: Event['headers'] | undefined): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
};

function originAllowed(origin: string, headers: Record<string, string>): boolean {
  if (config.CORS_ORIGINS.includes('*') || config.CORS_ORIGINS.includes(origin)) return true;
  if (config.PUBLIC_BASE_URL && new URL(config.PUBLIC_BASE_URL).origin === origin) return true;
  // Same origin as the API itself (a page served by the API's own host).
  const host = headers['x-forwarded-host'] ?? headers.host;
  return !!host && (origin === `https://${host}` || origin === `http://${host}`);
}

/** Request id, CORS, and the closing log line: on success and on error alike. */
const context = (route: Route): middy.MiddlewareObj<Event, Result, Error, Context, Internal> => {
  const finish = (request: MwRequest) => {
    const i = request.internal;
    const res = (request.response ??= { statusCode: 500 });
    const headers = (res.headers ??= {}) as Record<string, string>;
    headers['x-request-id'] = i.requestId;
    if (i.rate) Object.assign(headers, rateLimitHeaders(i.rate));
    const origin = i.headers.origin;
    if (origin && originAllowed(origin, i.headers)) {
      headers['access-control-allow-origin'] = origin;
      headers['access-control-allow-credentials'] = 'true';
      headers['access-control-expose-headers'] =
        'x-request-id, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset, content-disposition';
      headers.vary = 'Origin';
    }
    const status = res.statusCode ?? 200;
    const entry = {
      requestId: i.requestId,
      method: route.method,
      route: route.path,
      status,
      durationMs: Date.now() - i.started,
      code: status >= 400 && request.error && isAppError(request.error) ? request.error.code : undefined,
    };
    if (status >= 500) logger.error('request failed', { ...entry, error: request.error ?? undefined });
    else logger.info('request', entry);
  };
  return {
    before: (request) => {
      const headers = lowerHeaders(request.event.headers);
      request.internal = {
        started: Date.now(),
        requestId: request.event.requestContext?.requestId || randomUUID(),
        headers,
        req: {},
      } as Internal;
      const origin = headers.origin;
      // Writes from a browser page of a foreign origin are refused outright (CSRF), not just unshared.
      if (origin && route.method !== 'GET' && !originAllowed(origin, headers)) throw errors.forbidden('origin not allowed');
    },
    after: finish,
    onError: finish,
  };
};

/** One place turns errors into bodies: AppErrors speak, everything else is a bare 500. */
const errorBody = (): middy.MiddlewareObj<Event, Result, Error, Context, Internal> => ({
  onError: (request) => {
    let e = request.error as unknown;
    const cause = (e as { cause?: { package?: string } })?.cause;
    if (cause?.package === '@middy/http-json-body-parser') e = errors.invalidInput('body: malformed JSON');
    if (e instanceof z.ZodError) e = errors.invalidInput(describeZodError('body', e));
    const err: AppError = isAppError(e) ? e : errors.internal();
    request.response = {
      statusCode: err.status,
      headers: { 'content-type': 'application/json', ...err.headers },
      body: JSON.stringify({ error: err.code, message: err.message }),
    };
    if (!isAppError(e)) request.error = e as Error; // logged with its stack by the context middleware, never sent
    else request.error = err;
  },
});

/** Session first (the rate limit counts per user when signed in), then the group's rate limit. */
const sessionAndRateLimit = (route: Route): middy.MiddlewareObj<Event, Result, Error, Context, Internal> => ({
  before: async (request) => {
    const i = request.internal;
    const cookies = parseCookies(request.event.cookies, i.headers.cookie);
    let session: Session | null = null;
    let sessionState: Req['sessionState'] = 'none';
    if (route.auth !== 'none') {
      const found = await loadSession(cookies[SESSION_COOKIE]);
      sessionState = found.state;
      if (found.state === 'active') session = found.session;
    }
    const ip = request.event.requestContext?.http?.sourceIp ?? 'unknown';
    const client = { ip, key: session ? `user:${session.userId}` : `ip:${ip}` };
    i.rate = await hit(route.group, client.key, groups[route.group].rateLimit);
    if (i.rate.exceeded) throw errors.rateLimited(i.rate.reset || 1);
    if (route.auth === 'session' && !session) {
      throw sessionState === 'expired' ? errors.sessionExpired() : errors.unauthenticated();
    }
    Object.assign(i.req, { cookies, session, sessionState, client });
  },
});

/** JSON only when the request says JSON and has a body; other bodies stay raw for the handler. */
const jsonBody = (): middy.MiddlewareObj<Event, Result, Error, Context, Internal> => {
  const parser = httpJsonBodyParser({ disableContentTypeError: true });
  return {
    before: async (request) => {
      const type = request.internal.headers['content-type'] ?? '';
      if (!/^application\/(.+\+)?json/i.test(type) || !request.event.body) return;
      await parser.before!(request as never);
    },
  };
};

/**
 * The handler stack of ARCHITECTURE §4. `route` is the handler's own row of the route table;
 * `fn` gets the validated request and returns data (200 in the group's envelope) or a Reply.
 */
export function endpoint<B extends z.ZodType = z.ZodUnknown, Q extends z.ZodType = z.ZodUnknown, P extends z.ZodType = z.ZodUnknown>(
  route: Route,
  spec: Spec<B, Q, P>,
  fn: (req: Req<z.infer<B>, z.infer<Q>, z.infer<P>>) => Promise<unknown> | unknown,
) {
  const style = groups[route.group].envelope;
  const core = async (event: Event): Promise<Result> => {
    const i = state.get(event)!;
    if (spec.body && typeof event.body === 'string' && event.body.length > 0) {
      throw errors.invalidInput('body: must be JSON (Content-Type: application/json)');
    }
    const req = {
      ...i.req,
      event,
      route,
      headers: i.headers,
      requestId: i.requestId,
      rawBody: () => rawBodyOf(event),
      body: spec.body
        ? parseWith(spec.body, typeof event.body === 'string' ? undefined : event.body, 'body')
        : undefined,
      query: spec.query ? parseWith(spec.query, event.queryStringParameters ?? {}, 'query') : event.queryStringParameters ?? {},
      params: spec.params ? parseWith(spec.params, event.pathParameters ?? {}, 'path') : event.pathParameters ?? {},
    } as Req<z.infer<B>, z.infer<Q>, z.infer<P>>;
    const out = await fn(req);
    return toResult(style, out);
  };
  const handler = middy<Event, Result, Error, Context, Internal>()
    .use(context(route))
    .use(errorBody())
    .use({ before: (request: MwRequest) => void state.set(request.event, request.internal) })
    .use(sessionAndRateLimit(route))
    .use(jsonBody())
    .handler(core);
  return handler as unknown as (event: Event, context?: Partial<Context>) => Promise<Result>;
}

export function toResult(style: Parameters<typeof envelope>[0], out: unknown): Result {
  if (out instanceof Reply) {
    const headers: Record<string, string> = { ...(out.opts.headers ?? {}) };
    if (out.opts.binary) {
      return { statusCode: out.status, headers, cookies: out.opts.cookies, isBase64Encoded: true, body: out.opts.binary.toString('base64') };
    }
    if (out.body === undefined) return { statusCode: out.status, headers, cookies: out.opts.cookies, body: '' };
    headers['content-type'] ??= 'application/json';
    const body = out.opts.bare ? out.body : envelope(style, out.body);
    return { statusCode: out.status, headers, cookies: out.opts.cookies, body: JSON.stringify(body) };
  }
  return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(envelope(style, out ?? {})) };
}
