import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Route } from '#lib/http/route.ts';
import { config } from '#lib/config.ts';
import { isolateInvocations } from '#lib/observability.ts';
import { createRouter, gatewayPath, type Match } from '#lib/http/router.ts';
import { RAW_BODY, RAW_BODY_STREAM } from '#lib/http/raw-body.ts';
import { enableStreaming, streamedBodyOf } from '#lib/http/stream.ts';
import { MAX_BODY_BYTES } from '#lib/storage/limits.ts';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResultV2>;

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Each handler is its own module, imported once and kept warm, as a Lambda instance keeps it. */
const modules = new Map<string, Promise<Handler>>();
function load(file: string): Promise<Handler> {
  let m = modules.get(file);
  if (!m) {
    m = import(pathToFileURL(join(root, file)).href).then((mod: { handler?: Handler }) => {
      if (typeof mod.handler !== 'function') throw new Error(`${file} exports no handler`);
      return mod.handler;
    });
    modules.set(file, m);
  }
  return m;
}

/** `METHOD /path/{param}`, once per route: the path's rewriting is a regex replace, and every request asked for it. */
const routeKeys = new WeakMap<Route, string>();
function routeKeyOf(route: Route): string {
  let key = routeKeys.get(route);
  if (key === undefined) routeKeys.set(route, (key = `${route.method} ${gatewayPath(route.path)}`));
  return key;
}

const TEXT = /^(application\/(.+\+)?json|text\/|application\/x-www-form-urlencoded)/i;

/** The payload-2.0 event API Gateway's HTTP API would send for this request. */
export function toEvent(req: IncomingMessage, url: URL, body: Buffer, route: Route | undefined, params: Record<string, string>) {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || k === 'cookie') continue;
    headers[k] = Array.isArray(v) ? v.join(',') : v;
  }
  const cookies = req.headers.cookie
    ? req.headers.cookie
        .split(';')
        .map((c) => c.trim())
        .filter(Boolean)
    : undefined;
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
  const method = (req.method ?? 'GET').toUpperCase();
  const routeKey = route ? routeKeyOf(route) : '$default';
  const now = Date.now();
  const isText = TEXT.test(headers['content-type'] ?? '');
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies,
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: Object.keys(params).length ? params : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0]!,
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    isBase64Encoded: body.length > 0 && !isText,
  };
  if (body.length === 0) return event;
  if (isText) {
    event.body = body.toString('utf8');
    return event;
  }
  // Binary bodies are base64 in the event, as on AWS, but computed only if a handler reads them:
  // handlers that stream (uploads) take the bytes themselves through RAW_BODY.
  let encoded: string | undefined;
  Object.defineProperty(event, 'body', {
    enumerable: true,
    configurable: true,
    get: () => (encoded ??= body.toString('base64')),
    set: (v: string) => {
      encoded = v;
    },
  });
  Object.defineProperty(event, RAW_BODY, { value: body, enumerable: false });
  return event;
}

function lambdaContext(route: Route | undefined): Context {
  const started = Date.now();
  const timeoutMs = (route?.timeout ?? 10) * 1000;
  const name = route ? route.handler : 'fallback';
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${name}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, timeoutMs - (Date.now() - started)),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

function send(res: ServerResponse, result: APIGatewayProxyResultV2) {
  // Payload 2.0: a handler may return a bare value, which API Gateway sends as JSON with 200.
  const r: APIGatewayProxyStructuredResultV2 =
    typeof result === 'object' && result !== null && 'statusCode' in result
      ? (result as APIGatewayProxyStructuredResultV2)
      : { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(result) };
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(r.headers ?? {})) headers[k.toLowerCase()] = String(v);
  if (r.cookies?.length) headers['set-cookie'] = r.cookies;
  // A text body goes out as the string it is: Node then writes headers and body in one chunk.
  const body = r.body === undefined ? '' : r.isBase64Encoded ? Buffer.from(r.body, 'base64') : r.body;
  headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.length);
  res.writeHead(r.statusCode ?? 200, headers);
  res.end(body);
}

/**
 * A streamed answer (a route marked `stream`, as its function URL streams on AWS): the head as the
 * handler's result gave it, then each chunk as it comes, without Content-Length. A client that
 * goes away stops the body's iteration.
 */
async function sendStream(res: ServerResponse, result: APIGatewayProxyStructuredResultV2, body: AsyncIterable<string>) {
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k.toLowerCase()] = String(v);
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  res.writeHead(result.statusCode ?? 200, headers);
  res.flushHeaders();
  const chunks = body[Symbol.asyncIterator]();
  const onClose = () => void chunks.return?.();
  res.once('close', onClose);
  try {
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
      if (res.destroyed) break;
      res.write(next.value);
    }
  } finally {
    res.off('close', onClose);
    res.end();
  }
}

/**
 * A function URL's response stream (cdk/lambda-runtime/awslambda.mjs, HttpResponseStream.from):
 * the prelude (status, headers, cookies as JSON) up to 8 zero bytes, then the body as it comes.
 */
async function sendResponseStream(res: ServerResponse, bytes: AsyncIterable<Buffer>) {
  let head = Buffer.alloc(0);
  let started = false;
  const SEPARATOR = Buffer.alloc(8);
  try {
    for await (const chunk of bytes) {
      if (started) {
        if (res.destroyed) break;
        res.write(chunk);
        continue;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf(SEPARATOR);
      if (end < 0) continue;
      const prelude = JSON.parse(head.subarray(0, end).toString('utf8')) as { statusCode?: number; headers?: Record<string, string>; cookies?: string[] };
      const headers: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(prelude.headers ?? {})) headers[k.toLowerCase()] = String(v);
      if (prelude.cookies?.length) headers['set-cookie'] = prelude.cookies;
      res.writeHead(prelude.statusCode ?? 200, headers);
      res.flushHeaders();
      started = true;
      const rest = head.subarray(end + SEPARATOR.length);
      if (rest.length) res.write(rest);
    }
    if (!started) throw new Error('the response stream ended before its prelude');
  } finally {
    res.end();
  }
}

function sendError(res: ServerResponse, status: number, code: string, message: string) {
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
  res.end(JSON.stringify({ error: code, message }));
}

/** CORS preflight, which API Gateway answers itself when the API has a CORS configuration. */
function preflight(req: IncomingMessage, res: ServerResponse) {
  const origin = req.headers.origin;
  const allowed = origin && (config.CORS_ORIGINS.includes('*') || config.CORS_ORIGINS.includes(origin));
  res.writeHead(204, {
    ...(allowed
      ? {
          'access-control-allow-origin': origin,
          'access-control-allow-credentials': 'true',
          'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
          'access-control-allow-headers': 'content-type, x-zk-proof, x-zk-public-signals, x-request-id, idempotency-key',
          'access-control-max-age': '600',
        }
      : {}),
    vary: 'Origin',
  });
  res.end();
}

const EMPTY = Buffer.alloc(0);

/** The request's bytes, refused past MAX_BODY_BYTES. Plain listeners: no async iterator per request. */
function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) return Promise.resolve('too-large');
  if (declared === 0 && req.headers['transfer-encoding'] === undefined) {
    req.resume(); // nothing to read: let the stream end
    return Promise.resolve(EMPTY);
  }
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.off('data', onData);
        ok('too-large');
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => ok(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.once('error', fail);
  });
}

/**
 * Route matches by method and path, remembered: the router walks the whole table per call, and
 * a warm runtime sees the same few paths over and over. Bounded, so that arbitrary paths
 * cannot grow it without limit.
 */
function memoized(match: (method: string, path: string) => Match) {
  const seen = new Map<string, Match>();
  return (method: string, path: string): Match => {
    const key = `${method} ${path}`;
    let m = seen.get(key);
    if (!m) {
      m = match(method, path);
      if (seen.size >= 1000) seen.clear();
      seen.set(key, m);
    }
    return m;
  };
}

/**
 * Where the gateway sends an event when its handlers do not run in this process (the asset mode,
 * cdk/start-assets.ts): the route's deployed function (for a `stream` route, its function URL's
 * function), which answers with a payload-2.0 result or the bytes of a response stream.
 */
export type Integration = (
  route: Route | undefined,
  event: APIGatewayProxyEventV2,
) => Promise<{ kind: 'result'; result: unknown } | { kind: 'stream'; bytes: AsyncIterable<Buffer> }>;

/**
 * The API Gateway emulator: HTTP in, payload-2.0 event to the route's handler, its result out.
 * With `integration`, the handlers run elsewhere: requests are read whole (as API Gateway reads
 * them) and the event goes to `integration`.
 */
export async function gatewayListener(routes: readonly Route[], opts: { integration?: Integration } = {}) {
  const match = memoized(createRouter(routes).match);
  // Requests overlap in this one process: each invocation gets its own Powertools state, as on a
  // multi-concurrency Lambda instance (lib/observability.ts).
  const isolated = await isolateInvocations();
  return async (req: IncomingMessage, res: ServerResponse) => {
    let streamed = false;
    try {
      if (req.method === 'OPTIONS') return preflight(req, res);
      const url = new URL(req.url ?? '/', 'http://localhost');
      const found = match(req.method ?? 'GET', url.pathname);
      const route = found.kind === 'route' ? found.route : undefined;
      streamed = !opts.integration && streamsRequest(req, route);
      const body = streamed ? (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES ? 'too-large' : EMPTY) : await readBody(req);
      if (body === 'too-large') {
        sendError(res, 413, 'FILE_TOO_LARGE', 'request body exceeds 100 MB');
        req.destroy();
        return;
      }
      const event = toEvent(req, url, body, route, found.kind === 'route' ? { ...found.params } : {});
      if (streamed) Object.defineProperty(event, RAW_BODY_STREAM, { value: req, enumerable: false });
      if (opts.integration) {
        const outcome = await opts.integration(route, event);
        if (outcome.kind === 'result') send(res, outcome.result as APIGatewayProxyResultV2);
        else await sendResponseStream(res, outcome.bytes);
        return;
      }
      const handler = await load(route ? route.handler : 'functions/fallback.ts');
      if (route?.stream) enableStreaming(event);
      await isolated(event.requestContext.requestId, async () => {
        const result = await handler(event, lambdaContext(route));
        const streamed = streamedBodyOf(event);
        if (streamed && typeof result === 'object' && result !== null && 'statusCode' in result) await sendStream(res, result, streamed);
        else send(res, result);
      });
    } catch (e) {
      // A handler that throws past its own error handling: Lambda would answer 500 through API Gateway.
      console.error(JSON.stringify({ level: 'ERROR', message: 'handler crashed', error: String((e as Error)?.stack ?? e) }));
      if (!res.headersSent) sendError(res, 500, 'INTERNAL', 'internal error');
      else res.destroy();
    } finally {
      // A streamed body the handler answered before reading to its end (a 401, a bad proof, a
      // failed part): the rest is read and dropped, as API Gateway reads a whole request.
      if (streamed && !req.readableEnded) {
        req.unpipe();
        req.resume();
      }
    }
  };
}

/**
 * Whether the handler gets the request as a stream (RAW_BODY_STREAM) instead of the whole body
 * in the event: multipart bodies of `streamRequest` routes — unless the request carries an
 * Idempotency-Key on an idempotent route, whose fingerprint covers the whole body before the
 * handler runs (lib/http/middleware/idempotency.ts); such a request is buffered as before.
 */
function streamsRequest(req: IncomingMessage, route: Route | undefined): boolean {
  if (!route?.streamRequest || !/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) return false;
  return !(route.idempotent && req.headers['idempotency-key'] !== undefined);
}
