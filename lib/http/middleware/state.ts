import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Session } from '#lib/data/sessions.ts';
import { ORIGIN_SECRET_HEADER, rateKeyOfAddress, resolveClientAddress } from '../client-address.ts';
import type { RateLimitState } from '../rate-limit.ts';
import type { Route } from '../route.ts';

export type Event = APIGatewayProxyEventV2;
export type Result = APIGatewayProxyStructuredResultV2;

/**
 * What the middlewares find out about a request, kept on middy's `request.internal` so that each
 * middleware reads what the ones before it wrote and the handler gets it all.
 */
export type HttpState = {
  route: Route;
  started: number;
  /** API Gateway's request id (the correlation id), or a fresh uuid outside API Gateway. */
  requestId: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  cookies: Record<string, string>;
  /** The live session, or null (`sessionState` tells expired from none). */
  session: Session | null;
  sessionState: 'none' | 'expired' | 'active';
  /**
   * Who the rate limit counts: the user when signed in, else the client's address (the viewer's
   * behind CloudFront, lib/http/client-address.ts; an IPv6 address by its /64).
   */
  client: { ip: string; key: string };
  rate?: RateLimitState;
  /** The validated body, query and path parameters. */
  input: { body: unknown; query: unknown; params: unknown };
  /** This request's claim on its `Idempotency-Key` (`owner`: this attempt's name on the record). */
  idempotency?: { scope: string; key: string; fingerprint: string; owner: string };
  /** The first answer to the same request with the same key: sent again, the handler not run. */
  replayed?: Result;
};

/** Middy's request with our state. The handler's own result may be any value until the envelope middleware shapes it. */
export type HttpRequest = middy.Request<Event, Result, Error, Context, HttpState>;
export type HttpMiddleware = middy.MiddlewareObj<Event, Result, Error, Context, HttpState>;

/** The handler function sees the event only (middy's handler signature): the state is found through it. */
const byEvent = new WeakMap<Event, HttpState>();
export const stateOf = (event: Event): HttpState | undefined => byEvent.get(event);

/** The state a fresh request starts with, before any middleware has looked at it. */
export function initialState(route: Route, event: Event, now = Date.now()): HttpState {
  const state = freshState(route, event, now);
  byEvent.set(event, state);
  return state;
}

function freshState(route: Route, event: Event, now: number): HttpState {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.headers ?? {})) if (v !== undefined) headers[k.toLowerCase()] = v;
  const ip = resolveClientAddress(event.requestContext?.http?.sourceIp ?? 'unknown', headers);
  // The origin secret has done its work: no handler, log or echo ever sees it.
  delete headers[ORIGIN_SECRET_HEADER];
  for (const k of Object.keys(event.headers ?? {})) if (k.toLowerCase() === ORIGIN_SECRET_HEADER) delete event.headers[k];
  return {
    route,
    started: now,
    requestId: event.requestContext?.requestId || crypto.randomUUID(),
    headers,
    cookies: {},
    session: null,
    sessionState: 'none',
    client: { ip, key: rateKeyOfAddress(ip) },
    input: { body: undefined, query: {}, params: {} },
  };
}

/** The response's header map, created when missing (an error may leave no response yet). */
export function responseHeaders(request: HttpRequest): Record<string, string> {
  const res = (request.response ??= { statusCode: 500 });
  return (res.headers ??= {}) as Record<string, string>;
}
