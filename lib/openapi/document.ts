import * as z from 'zod';
import { errors } from '#lib/errors.ts';
import { groups, type Envelope } from '#lib/http/groups.ts';
import type { Route } from '#lib/http/route.ts';
import type { Spec } from '#lib/http/endpoint.ts';
import { RESPONSE_META_KEY, responseMeta } from './responses.ts';
import { GROUP_TEXT, OPERATION_TEXT } from './operation-text.ts';
import { bodyExample, type JsonSchema } from './examples.ts';

/**
 * The OpenAPI 3.1 document, built from the route table and each handler's spec (its zod schemas,
 * through zod's own JSON Schema output): never written by hand. The same functions give the API
 * tests the schema of one route's answer (`operationOf`), so the document and the checks agree.
 */
export type { JsonSchema };
export interface RouteSpec {
  route: Route;
  spec: Spec<z.ZodType, z.ZodType, z.ZodType>;
}
export type OpenApiDocument = JsonSchema & {
  paths: Record<string, Record<string, JsonSchema>>;
  components: { schemas: Record<string, JsonSchema> } & JsonSchema;
};

export const SESSION_COOKIE_NAME = 'shroud_session';

/** Every error code of `lib/errors.ts` by its status: each constructor called once (an array argument fits all their parameters). */
export function errorCodesByStatus(): Map<number, string[]> {
  const byStatus = new Map<number, Set<string>>();
  for (const make of Object.values(errors) as ((arg: unknown) => { code: string; status: number })[]) {
    const e = make(['1']);
    byStatus.set(e.status, (byStatus.get(e.status) ?? new Set()).add(e.code));
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b).map(([s, codes]) => [s, [...codes].sort()]));
}

const errorSchemaName = (status: number) => `Error${status}`;

/** `/api/storage/download/:cid` → `/api/storage/download/{cid}`. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/** `functions/zk-toolkit/field-add.ts` → `zkToolkitFieldAdd`, unless the row names its own (`operationId`). */
export const operationIdOf = (route: Route) =>
  route.operationId ??
  route.handler
    .replace(/^functions\//, '')
    .replace(/\.ts$/, '')
    .split(/[/-]/)
    .map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1)))
    .join('');

/** zod → JSON Schema (draft 2020-12, as OpenAPI 3.1 uses), without the `$schema` key and our markers. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete out.$schema;
  delete out[RESPONSE_META_KEY];
  return namedRecordKeys(out);
}

/**
 * A record with enumerated keys (`z.record(z.enum([...]), v)`) comes out as `required` keys with no
 * `properties`; the same object with each key a property reads better and defines what it requires.
 */
function namedRecordKeys(node: unknown): JsonSchema {
  if (Array.isArray(node)) return node.map(namedRecordKeys) as never;
  if (!node || typeof node !== 'object') return node as JsonSchema;
  const s = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, namedRecordKeys(v)])) as JsonSchema;
  const required = s.required as string[] | undefined;
  const props = (s.properties as Record<string, JsonSchema> | undefined) ?? {};
  const values = s.additionalProperties;
  if (required?.some((k) => !(k in props)) && values && typeof values === 'object') {
    s.properties = { ...props, ...Object.fromEntries(required.filter((k) => !(k in props)).map((k) => [k, values])) };
  }
  return s;
}

/** Drops the components nothing refers to (an error status no route answers), until none is left. */
function withoutUnusedComponents(doc: OpenApiDocument): OpenApiDocument {
  const components = doc.components as Record<string, Record<string, unknown> | undefined>;
  for (let dropped = true; dropped; ) {
    dropped = false;
    const text = JSON.stringify(doc);
    for (const kind of ['schemas', 'responses', 'headers', 'parameters']) {
      for (const name of Object.keys(components[kind] ?? {})) {
        if (!text.includes(`"#/components/${kind}/${name}"`)) {
          delete components[kind]![name];
          dropped = true;
        }
      }
    }
  }
  return doc;
}

/** Moves a schema's `$defs` into the document's components (named after the operation), refs rewritten. */
function hoistDefs(schema: JsonSchema, prefix: string, components: Record<string, JsonSchema>): JsonSchema {
  const defs = schema.$defs as Record<string, JsonSchema> | undefined;
  if (!defs) return schema;
  delete schema.$defs;
  const rewrite = (text: string) => text.replace(/"#\/\$defs\/([^"]+)"/g, (_, name: string) => `"#/components/schemas/${prefix}_${name}"`);
  for (const [name, def] of Object.entries(defs)) components[`${prefix}_${name}`] = JSON.parse(rewrite(JSON.stringify(def)));
  return JSON.parse(rewrite(JSON.stringify(schema)));
}

const SUCCESS = { type: 'boolean', const: true };

/** The group's envelope around the handler's data (the three styles of `lib/http/envelope.ts`). */
export function envelopeSchema(style: Envelope, data: JsonSchema): JsonSchema {
  if (style === 'auth') return data;
  if (style === 'data') return { type: 'object', properties: { success: SUCCESS, data }, required: ['success', 'data'], additionalProperties: false };
  return flatten(data);
}

/** `success: true` beside the data's own fields; a union gets it in each branch. */
function flatten(data: JsonSchema): JsonSchema {
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = data[key] as JsonSchema[] | undefined;
    if (branches) return { ...data, [key]: branches.map(flatten) };
  }
  if (data.type === 'object') {
    return {
      ...data,
      properties: { success: SUCCESS, ...((data.properties as JsonSchema | undefined) ?? {}) },
      required: ['success', ...((data.required as string[] | undefined) ?? [])],
    };
  }
  return { allOf: [{ type: 'object', properties: { success: SUCCESS }, required: ['success'] }, data] };
}

const header = (description: string, schema: JsonSchema = { type: 'integer', minimum: 0 }) => ({ description, schema });
const HEADERS = {
  RateLimitLimit: header("The route group's requests per minute for this client (the user when signed in, else the source IP)."),
  RateLimitRemaining: header("What is left of the limit in this window (this function instance's view)."),
  RateLimitReset: header("Seconds until the window's end."),
  RetryAfter: header('Seconds to wait before retrying.'),
  IdempotentReplayed: header('`true` when this is the kept answer of an earlier request with the same Idempotency-Key.', { type: 'string', enum: ['true'] }),
  Location: header('Where the redirect goes.', { type: 'string' }),
  SetCookie: header('The session cookie (`shroud_session`, HttpOnly, SameSite=Lax).', { type: 'string' }),
};
const rateHeaders = {
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimitLimit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimitRemaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimitReset' },
};
const retryHeaders = { ...rateHeaders, 'Retry-After': { $ref: '#/components/headers/RetryAfter' } };

/** The statuses of errors the handler stack itself can answer on `route` (the handler may add more: `default`). */
function stackErrorStatuses(route: Route, spec: RouteSpec['spec']): number[] {
  const statuses = new Set([400, 429, 500, 503]);
  if (route.auth !== 'none') statuses.add(401);
  if (route.method !== 'GET') statuses.add(403); // a write from a foreign Origin
  if (route.path.includes(':')) statuses.add(404);
  if (route.idempotent) statuses.add(409).add(422);
  for (const s of Object.keys(spec.responses ?? {}).map(Number)) if (s >= 400) statuses.delete(s);
  return [...statuses].sort((a, b) => a - b);
}

const SIGN_IN: Record<Route['auth'], string> = {
  session: 'Sign-in: required (the session cookie).',
  optional: 'Sign-in: not needed; with the session cookie the answer is also about that session.',
  none: 'Sign-in: not needed.',
};

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  302: 'Found',
  304: 'Not Modified',
  400: 'Bad request',
  401: 'Not signed in, or the credentials or proof were refused',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Too large',
  415: 'Unsupported media type',
  422: 'Refused',
  429: 'Rate limited',
  500: 'Internal error',
  502: 'An upstream service failed',
  503: 'A dependency is unavailable; retry later',
};

/** One declared answer of a route as an OpenAPI response object. */
function responseOf(route: Route, status: number, schema: z.ZodType, prefix: string, components: Record<string, JsonSchema>): JsonSchema {
  const meta = responseMeta(schema);
  const headers: JsonSchema = { ...rateHeaders };
  if (route.idempotent && status < 300) headers['Idempotent-Replayed'] = { $ref: '#/components/headers/IdempotentReplayed' };
  const description = meta.description ?? STATUS_TEXT[status] ?? `HTTP ${status}`;
  if (meta.redirect) return { description, headers: { ...headers, Location: { $ref: '#/components/headers/Location' } } };
  if (meta.mediaType) return { description, headers, content: { [meta.mediaType]: { schema: { type: 'string', contentMediaType: meta.mediaType } } } };
  const data = hoistDefs(jsonSchemaOf(schema, 'output'), `${prefix}_${status}`, components);
  const body = status >= 400 || meta.bare ? data : envelopeSchema(groups[route.group].envelope, data);
  return { description, headers, content: { 'application/json': { schema: body } } };
}

/** The operation object of one route (shared by the document and the API tests' response checks). */
export function operationOf({ route, spec }: RouteSpec, components: Record<string, JsonSchema>): JsonSchema {
  const id = operationIdOf(route);
  const parameters: JsonSchema[] = [];
  const paramSchema = spec.params ? jsonSchemaOf(spec.params, 'input') : undefined;
  for (const name of [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!)) {
    const schema = (paramSchema?.properties as Record<string, JsonSchema> | undefined)?.[name] ?? { type: 'string' };
    parameters.push({ name, in: 'path', required: true, schema });
  }
  if (spec.query) {
    const q = jsonSchemaOf(spec.query, 'input');
    const required = new Set((q.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((q.properties as Record<string, JsonSchema> | undefined) ?? {})) {
      parameters.push({ name, in: 'query', required: required.has(name), schema });
    }
  }
  if (route.idempotent) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });

  const responses: Record<string, JsonSchema> = {};
  for (const [status, schema] of Object.entries(spec.responses ?? {})) {
    if (schema) responses[status] = responseOf(route, Number(status), schema, id, components);
  }
  for (const status of stackErrorStatuses(route, spec)) responses[String(status)] = { $ref: `#/components/responses/${errorSchemaName(status)}` };
  responses.default = { $ref: '#/components/responses/Error' };

  const key = `${route.method} ${openApiPath(route.path)}`;
  const text = OPERATION_TEXT[key];
  if (!text) throw new Error(`lib/openapi/operation-text.ts: no summary and description for ${key}`);
  const op: JsonSchema = {
    operationId: id,
    tags: [route.group],
    summary: text.summary,
    description: `${text.description}\n\n${SIGN_IN[route.auth]} ${groups[route.group].rateLimit} requests per minute per client.`,
    // An optional session needs none: the route answers signed out, and for the session when the cookie comes along.
    security: route.auth === 'session' ? [{ session: [] }] : [],
    ...(route.auth === 'optional' ? { 'x-session': 'optional' } : {}),
    parameters,
    responses,
    'x-rate-limit-per-minute': groups[route.group].rateLimit,
  };
  if (spec.body) {
    const schema = jsonSchemaOf(spec.body, 'input');
    op.requestBody = {
      required: !spec.body.safeParse(undefined).success,
      content: { 'application/json': { schema: hoistDefs(schema, `${id}_body`, components), example: bodyExample(key, schema, spec.body) } },
    };
  } else if (route.method === 'POST' && /upload/.test(route.path)) {
    op.requestBody = { required: true, content: { 'multipart/form-data': { schema: { type: 'object', additionalProperties: true } } } };
  }
  return op;
}

/** The error answers, one schema per status whose `error` is one of that status's codes. */
export function errorComponents(): { schemas: Record<string, JsonSchema>; responses: Record<string, JsonSchema> } {
  const schemas: Record<string, JsonSchema> = {};
  const responses: Record<string, JsonSchema> = {};
  const all: string[] = [];
  for (const [status, codes] of errorCodesByStatus()) {
    all.push(...codes);
    schemas[errorSchemaName(status)] = errorBody(codes);
    responses[errorSchemaName(status)] = {
      description: `${STATUS_TEXT[status] ?? `HTTP ${status}`}: ${codes.join(', ')}`,
      headers: [409, 429, 503].includes(status) ? retryHeaders : rateHeaders,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${errorSchemaName(status)}` } } },
    };
  }
  schemas.Error = errorBody([...new Set(all)].sort());
  responses.Error = {
    description: 'Any other error',
    headers: retryHeaders,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
  return { schemas, responses };
}

const errorBody = (codes: string[]): JsonSchema => ({
  type: 'object',
  properties: { error: { type: 'string', enum: codes }, message: { type: 'string' } },
  required: ['error', 'message'],
  additionalProperties: false,
});

/** The whole document. */
export function openApiDocument(entries: readonly RouteSpec[], info: { title: string; version: string; description?: string }): OpenApiDocument {
  const errorsOf = errorComponents();
  const schemas: Record<string, JsonSchema> = { ...errorsOf.schemas };
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const entry of entries) {
    const path = openApiPath(entry.route.path);
    (paths[path] ??= {})[entry.route.method.toLowerCase()] = operationOf(entry, schemas);
  }
  const groupNames = [...new Set(entries.map((e) => e.route.group))];
  return withoutUnusedComponents({
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      description:
        (info.description ? `${info.description}\n\n` : '') +
        "Generated from the route table and the handlers' zod schemas. Every error body is `{error, message}`; " +
        'every route is rate limited per client in a 60 s window (`RateLimit-*` headers; over the limit `429` with `Retry-After`).',
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: '/' }],
    tags: groupNames.map((g) => ({
      name: g,
      description:
        `${GROUP_TEXT[g] ?? ''} (\`${g === 'docs' ? '/api/docs' : `/api/${g}`}\`: ${groups[g].envelope} envelope, ${groups[g].rateLimit} requests per minute.)`.trim(),
    })),
    paths,
    components: {
      schemas,
      responses: errorsOf.responses,
      headers: HEADERS,
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'A retry with the same key and request gets the first answer back (kept 24 h); the same key with another request is 422.',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
        },
      },
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE_NAME, description: 'Set by login (password or OAuth); HttpOnly, SameSite=Lax.' },
      },
    },
  });
}

/** The routes whose handler declares no schema for any 2xx answer (gaps to fill). */
export const routesWithoutSuccessSchema = (entries: readonly RouteSpec[]) =>
  entries
    .filter(({ spec }) => !Object.keys(spec.responses ?? {}).some((s) => Number(s) >= 200 && Number(s) < 400))
    .map(({ route }) => `${route.method} ${route.path} (${route.handler})`);
