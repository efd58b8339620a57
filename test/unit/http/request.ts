import type { Context } from 'aws-lambda';
import type { Route } from '#lib/http/route.ts';
import type { Event, HttpMiddleware, HttpRequest, HttpState } from '#lib/http/middleware/state.ts';
import { initialState } from '#lib/http/middleware/state.ts';

/** A payload-2.0 event as API Gateway sends it, with what a test needs to vary. */
export function eventOf(
  opts: {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    cookies?: string[];
    query?: Record<string, string>;
    params?: Record<string, string>;
  } = {},
): Event {
  const method = opts.method ?? 'GET';
  const path = opts.path ?? '/api/x';
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: opts.headers ?? {},
    cookies: opts.cookies,
    body: opts.body,
    queryStringParameters: opts.query,
    pathParameters: opts.params,
    isBase64Encoded: false,
    requestContext: {
      accountId: 'test',
      apiId: 'test',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '192.0.2.7', userAgent: 'test' },
      requestId: 'req-1',
      routeKey: `${method} ${path}`,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
  };
}

export const routeOf = (over: Partial<Route> = {}): Route => ({
  method: 'POST',
  path: '/api/x',
  group: 'init',
  handler: 'functions/init/get.ts',
  auth: 'none',
  ...over,
});

/** A middy request as the stack hands it to a middleware, its state started as requestContext would. */
export function requestOf(route: Route, event: Event = eventOf({ method: route.method, path: route.path })): HttpRequest {
  return { event, context: {} as Context, response: null, error: null, internal: initialState(route, event) as HttpState };
}

/** Runs one phase of a middleware and returns what it threw, if anything. */
export async function run(mw: HttpMiddleware, phase: 'before' | 'after' | 'onError', request: HttpRequest): Promise<unknown> {
  try {
    await mw[phase]?.(request);
    return undefined;
  } catch (e) {
    return e;
  }
}
