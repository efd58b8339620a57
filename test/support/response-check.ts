import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { routes } from '#functions/routes.ts';
import type { Route } from '#lib/http/route.ts';
import { matchRoute } from '#lib/http/router.ts';
import { errorComponents, type JsonSchema } from '#lib/openapi/document.ts';

/**
 * The API tests' check of every answer against the OpenAPI document's schema for its route and
 * status (the committed document, below). Strict where the document speaks: a declared status must match its schema, a
 * route that declares its 2xx answers must not answer another 2xx, and every error body must be
 * `{error, message}` with a code of that status. A route that declares no 2xx schema yet is not
 * checked on success (the unit test `test/api/openapi.test.ts` lists those routes).
 */
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const root = new URL('../../', import.meta.url).pathname;

const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
const components: Record<string, JsonSchema> = {};
const errorsOf = errorComponents();
Object.assign(components, errorsOf.schemas);

interface Checks {
  declared: Set<number>;
  validators: Map<number, ValidateFunction>;
}
const byRoute = new Map<Route, Promise<Checks>>();
const errorValidators = new Map<string, ValidateFunction>();

/** A schema with the document's `#/components/schemas/...` references resolved. */
const compile = (schema: JsonSchema) => ajv.compile({ ...schema, $defs: undefined, components: { schemas: components } } as JsonSchema);

/**
 * The committed document (functions/docs/openapi.json; `test/api/openapi.test.ts` and CI's
 * `--check` keep it what the code generates). Read rather than importing the handlers, so a test
 * whose runtime is another process (`npm start`) needs none of their configuration.
 */
const documentOf = (() => {
  type Doc = {
    paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }> }>>;
    components?: { schemas?: Record<string, JsonSchema> };
  };
  let doc: Doc | undefined;
  return (): Doc => {
    if (!doc) {
      doc = JSON.parse(readFileSync(join(root, 'functions/docs/openapi.json'), 'utf8')) as Doc;
      Object.assign(components, doc.components?.schemas ?? {}, errorsOf.schemas);
    }
    return doc;
  };
})();

function checksOf(route: Route): Promise<Checks> {
  let checks = byRoute.get(route);
  if (!checks) {
    checks = (async () => {
      const path = route.path.replace(/:(\w+)/g, '{$1}');
      const op = documentOf().paths[path]?.[route.method.toLowerCase()];
      if (!op) throw new Error(`response check: ${route.method} ${route.path} is not in functions/docs/openapi.json (run npm run openapi)`);
      const declared = new Set(
        Object.keys(op.responses)
          .map(Number)
          .filter((s) => s < 400),
      );
      const validators = new Map<number, ValidateFunction>();
      for (const status of declared) {
        const content = op.responses[status]?.content?.['application/json'];
        if (content) validators.set(status, compile(content.schema));
      }
      return { declared, validators };
    })();
    byRoute.set(route, checks);
  }
  return checks;
}

function errorValidator(status: number): ValidateFunction | undefined {
  const name = `Error${status}`;
  if (!errorsOf.schemas[name]) return undefined;
  let v = errorValidators.get(name);
  if (!v) errorValidators.set(name, (v = compile({ $ref: `#/components/schemas/${name}` })));
  return v;
}

const describe = (v: ValidateFunction) =>
  (v.errors ?? [])
    .map((e) => `${e.instancePath || '(body)'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` '${String(e.params.additionalProperty)}'` : ''}`)
    .join('; ');

/** Throws an Error naming the route, the status and what differs when `body` is not what the document says. */
export async function checkResponse(method: string, url: URL, status: number, contentType: string | null, body: unknown): Promise<void> {
  if (!url.pathname.startsWith('/api/')) return;
  const match = matchRoute(routes, method, url.pathname);
  const where = `${method} ${url.pathname} → ${status}`;
  const isJson = contentType?.includes('json') ?? false;
  if (status >= 400) {
    if (!isJson) throw new Error(`response check: ${where}: an error answer must be JSON {error, message}, got ${contentType ?? 'no content type'}`);
    const v = errorValidator(status);
    if (!v) throw new Error(`response check: ${where}: no error code of lib/errors.ts has status ${status} (body ${JSON.stringify(body).slice(0, 200)})`);
    if (!v(body)) throw new Error(`response check: ${where}: error body ${JSON.stringify(body).slice(0, 300)} does not match Error${status}: ${describe(v)}`);
    return;
  }
  if (match.kind !== 'route') return;
  // Server-sent events are the JSON answer's other form (Accept: text/event-stream); the ai tests check their frames.
  if (contentType?.startsWith('text/event-stream')) return;
  const { declared, validators } = await checksOf(match.route);
  const declaresSuccess = [...declared].some((s) => s < 400);
  if (!declaresSuccess) return; // a gap the unit test lists
  if (!declared.has(status)) {
    throw new Error(`response check: ${where}: status ${status} is not among the declared responses [${[...declared].join(', ')}] of ${match.route.handler}`);
  }
  const v = validators.get(status);
  if (!v) return; // a declared non-JSON answer (bytes, a redirect)
  if (!isJson) throw new Error(`response check: ${where}: expected JSON, got ${contentType ?? 'no content type'}`);
  if (!v(body)) {
    throw new Error(
      `response check: ${where}: body ${JSON.stringify(body).slice(0, 300)} does not match the schema declared in ${match.route.handler}: ${describe(v)}`,
    );
  }
}
