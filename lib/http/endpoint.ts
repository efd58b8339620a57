import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { z } from 'zod';
import type { Session } from '#lib/data/sessions.ts';
import { requestIdempotency } from './request-idempotency.ts';
import { groups } from './groups.ts';
import { observability } from '#lib/observability.ts';
import { requestContext } from './middleware/request-context.ts';
import { requestLog } from './middleware/request-log.ts';
import { originCheck } from './middleware/origin.ts';
import { sessionLoader, sessionRequired } from './middleware/session.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { jsonBody } from './middleware/json-body.ts';
import { validation, type Spec } from './middleware/validation.ts';
import { envelope } from './middleware/envelope.ts';
import { errorResponse } from './middleware/error-response.ts';
import { idempotency } from './middleware/idempotency.ts';
import { securityHeaders } from './middleware/security-headers.ts';
import { stateOf, type Event, type HttpState, type Result } from './middleware/state.ts';
import type { Readable } from 'node:stream';
import { rawBodyOf, requestBodyOf } from './raw-body.ts';
import type { Route } from './route.ts';

export type { Event, Result } from './middleware/state.ts';
export type { Spec } from './middleware/validation.ts';
export { toResult } from './middleware/envelope.ts';
export { describeZodError, parseWith } from './validation.ts';

/** What a handler function gets: the validated input and what the middlewares found out. */
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
  sessionState: HttpState['sessionState'];
  client: HttpState['client'];
  requestId: string;
  /** The raw request bytes (multipart and binary uploads). */
  rawBody(): Buffer;
  /** The same, or locally on a `streamRequest` route the request stream still arriving (lib/http/raw-body.ts). */
  requestBody(): Buffer | Readable;
}

export type LambdaHandler = (event: Event, context?: Partial<Context>) => Promise<Result>;
/** A handler made by endpoint(): its route row and schemas travel with it (fuzzing, OpenAPI). */
export type Endpoint = LambdaHandler & { readonly route: Route; readonly spec: Spec<z.ZodType, z.ZodType, z.ZodType> };

/**
 * The handler stack, one small middleware each, in this order: Powertools
 * (Lambda context and correlation id on the logger, the tracer's handler segment, the cold-start
 * metric) → request context → closing log line and request metrics → security headers → Origin (CSRF/CORS) → session → rate limit → session
 * required → idempotency → JSON body → validation → `fn` → envelope; errors become
 * `{error, message}` in one place (the first error handler to run, so the others decorate it). `route` is the
 * handler's own row of the route table; `fn` returns data (200 in the group's envelope) or a Reply.
 */
export function endpoint<B extends z.ZodType = z.ZodUnknown, Q extends z.ZodType = z.ZodUnknown, P extends z.ZodType = z.ZodUnknown>(
  route: Route,
  spec: Spec<B, Q, P>,
  fn: (req: Req<z.infer<B>, z.infer<Q>, z.infer<P>>) => Promise<unknown> | unknown,
): Endpoint {
  const stack = middy<Event, Result, Error, Context, HttpState>()
    .use(observability() as middy.MiddlewareObj<Event, Result, Error, Context, HttpState>[])
    .use(requestContext(route))
    .use(requestLog())
    .use(securityHeaders())
    .use(originCheck())
    .use(sessionLoader())
    .use(rateLimit())
    .use(sessionRequired())
    .use(idempotency())
    .use(jsonBody())
    .use(validation(spec))
    .use(envelope())
    .use(errorResponse());
  // The handler's raw answer goes through the envelope middleware, which makes it a Result.
  const handler = stack.handler(async (event) => {
    const state = stateOf(event)!;
    if (state.replayed) return state.replayed;
    // The Idempotency-Key's claim, for a value move the handler sends to bind it to (lib/moves/journal.ts).
    const claim = state.idempotency && { ...state.idempotency, envelope: groups[route.group].envelope };
    return (await requestIdempotency.run(claim, () => fn(requestOf(event, state)))) as Result;
  });
  const lambda: LambdaHandler = (event, context) => handler(event, (context ?? {}) as Context);
  return Object.assign(lambda, { route, spec: spec as Spec<z.ZodType, z.ZodType, z.ZodType> });
}

function requestOf<B, Q, P>(event: Event, state: HttpState): Req<B, Q, P> {
  return {
    event,
    route: state.route,
    body: state.input.body as B,
    query: state.input.query as Q,
    params: state.input.params as P,
    headers: state.headers,
    cookies: state.cookies,
    session: state.session,
    sessionState: state.sessionState,
    client: state.client,
    requestId: state.requestId,
    rawBody: () => rawBodyOf(event),
    requestBody: () => requestBodyOf(event),
  };
}
