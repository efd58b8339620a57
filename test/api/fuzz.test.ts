import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Endpoint } from '#lib/http/endpoint.ts';
import type { Event } from '#lib/http/middleware/state.ts';
import type { Route } from '#lib/http/route.ts';
import { routes } from '#functions/routes.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { form, signedIn } from '../support/storage.ts';
import { around, anyString, hostileBodyText, invalid, jsonSchemaOf, ownKeys, PROTOTYPE_KEYS, valid, type JsonSchema } from '../support/schema-arbitraries.ts';
import { eventOf } from '../unit/http/request.ts';
import { newIdentity } from './identity-helpers.ts';

/**
 * Every route of the route table, called in process with API Gateway payload-2.0 events built
 * from its own zod schemas: valid, one step off, and hostile (wrong types, huge and deep values,
 * prototype keys, unicode, missing and extra fields, not JSON at all), with and without a session.
 * Never a status ≥ 500; every 4xx is exactly `{error, message}`. Real DynamoDB Local and S3.
 *
 * `npm run fuzz` runs it longer: FUZZ_RUNS (per route; crypto-heavy routes a fifth) and FUZZ_SEED.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
/** Longer than any route's own timeout (29 s at most) would allow on a loaded machine. */
const ANSWER_MS = 45_000;
/** Proof generation and uploads cost seconds a request when they get far: fewer runs; bcrypt (register, login) and the crypto profile half. */
const HEAVY = new Set(['POST /api/zk-toolkit/proof/generate', 'POST /api/storage/upload', 'POST /api/zkauth/prove', 'POST /api/zk-toolkit/hash/pedersen']);
const SLOW = new Set(['POST /api/auth/register', 'POST /api/auth/login']);
const runsFor = (r: Route) => {
  const key = `${r.method} ${r.path}`;
  if (HEAVY.has(key)) return Math.max(3, Math.ceil(RUNS / 5));
  return SLOW.has(key) || r.profile === 'crypto' ? Math.max(5, Math.ceil(RUNS / 2)) : RUNS;
};

let rt: TestRuntime;
let session: string;
const handlers = new Map<Route, Endpoint>();
/** Known-good inputs per `METHOD /path part`: what refinements want, and ids that exist. */
const examples: Record<string, Record<string, unknown>[]> = {};

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '100000' });
  for (const r of routes) handlers.set(r, (await import(/* @vite-ignore */ `../../../${r.handler}`)).handler as Endpoint);
  const user = await signedIn(rt);
  session = user.jar.get('shroud_session')!;

  // A file and a share of the fuzzing user's, so that ids and tokens that exist get fuzzed too.
  const fields = { encryptedData: Buffer.from('fuzz me').toString('base64'), iv: 'aXY=', salt: 'c2FsdA==', filename: 'fuzz.enc' };
  const up = await user.request('POST', '/api/storage/upload', { body: form({ fields }) });
  if (up.status !== 201) throw new Error(`setup upload: ${up.status} ${JSON.stringify(up.json)}`);
  const share = await user.post('/api/storage/share', { fileId: up.json.fileId, expiresIn: 24 });
  const { encrypted } = await newIdentity();
  const ed = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x!;
  Object.assign(examples, {
    'POST /api/auth/register body': [{ username: 'fuzz_user', password: 'correct horse battery', ...encrypted }],
    'POST /api/auth/upgrade-legacy body': [{ ...encrypted }],
    'POST /api/chainb/submit-proof body': [
      {
        zkId: 'did:zk:0123456789abcdef',
        publicKey: Buffer.from(ed, 'base64url').toString('base64'),
        signature: Buffer.alloc(64, 7).toString('base64'),
        nonce: 'AAAAAAAAAAAAAAAA',
        timestamp: Date.now(),
      },
    ],
    'POST /api/storage/download body': [{ fileId: up.json.fileId }],
    'POST /api/storage/share body': [{ fileId: up.json.fileId, expiresIn: 1 }],
    'GET /api/storage/download/:cid params': [{ cid: up.json.cid }],
    'GET /api/storage/shared/:token params': [{ token: share.json.shareToken }],
    'POST /api/storage/shared/:token/download params': [{ token: share.json.shareToken }],
    'GET /share/:token params': [{ token: share.json.shareToken }],
    'GET /api/zk-toolkit/proof/circuits/:name/:artifact params': [{ name: 'preimage', artifact: 'verification_key.json' }],
    // Canonical values only (lib/attest/canonical.ts): what a generator of the JSON Schema rarely makes.
    'POST /api/attest body': [
      {
        schema: 'age-over-18',
        proof: {
          pi_a: ['1', '2', '1'],
          pi_b: [
            ['1', '2'],
            ['3', '4'],
            ['1', '0'],
          ],
          pi_c: ['1', '2', '1'],
          protocol: 'groth16',
          curve: 'bn128',
        },
        publicSignals: ['1', '2', '18', '150', '7'],
        scope: 'default',
        group: '00000000-0000-4000-8000-000000000000',
      },
    ],
    'POST /api/attest/:id/revoke body': [{ issuerSignature: { R8: { x: '1', y: '2' }, S: '3' } }],
  });
});
afterAll(async () => {
  await rt?.stop();
  await (await import('#lib/zk/groth16.ts')).terminateCurves();
});

/** A value of the schema's kind: valid (with extras), one step off, or a real example bent. */
function valueFor(schema: JsonSchema, key: string): fc.Arbitrary<unknown> {
  const known = examples[key];
  return fc.oneof(
    { weight: 3, arbitrary: valid(schema, { extras: true }) },
    { weight: 3, arbitrary: invalid(schema) },
    ...(known ? [{ weight: 4, arbitrary: around(schema, known) }] : []),
  );
}

/** Query and path parameters arrive as strings: whatever was generated, as text. */
const asStrings = (v: unknown): Record<string, string> | undefined => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return v === undefined ? undefined : { value: String(v) };
  return ownKeys(
    Object.entries(v).map(([k, x]) => [k, typeof x === 'string' ? x : (JSON.stringify(x) ?? '')]),
    {},
  ) as Record<string, string>;
};
const extraStrings = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), anyString(12)), anyString(40)), { maxLength: 2 });

/** A multipart body of the upload's parts, some missing, some hostile, in any order. */
const multipart = fc
  .tuple(
    fc.array(
      fc.tuple(
        fc.constantFrom(
          'file',
          'encryptedData',
          'iv',
          'salt',
          'filename',
          'proof',
          'publicSignals',
          'commitment',
          'checksum',
          'uploadId',
          '__proto__',
          'constructor',
        ),
        fc.oneof(anyString(60), fc.constantFrom('aXY=', 'c2FsdA==', Buffer.from('hello').toString('base64'), '{}', '[]', 'x'.repeat(70_000))),
      ),
      { maxLength: 8 },
    ),
    fc.constantFrom(
      'multipart/form-data; boundary=XyZ',
      'multipart/form-data',
      'multipart/form-data; boundary=',
      'multipart/form-data; boundary=other',
      'application/octet-stream',
    ),
    fc.boolean(),
  )
  .map(([parts, contentType, truncated]) => {
    const chunks = parts.map(([name, value]) =>
      name === 'file'
        ? `--XyZ\r\nContent-Disposition: form-data; name="file"; filename="${value.slice(0, 30)}"\r\nContent-Type: application/octet-stream\r\n\r\n${value}\r\n`
        : `--XyZ\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
    );
    const text = chunks.join('') + (truncated ? '--XyZ\r\nContent-Disp' : '--XyZ--\r\n');
    return { body: Buffer.from(text).toString('base64'), base64: true, contentType };
  });

function bodyFor(route: Route, handler: Endpoint): fc.Arbitrary<{ body?: string; base64: boolean; contentType?: string }> {
  const key = `${route.method} ${route.path}`;
  const json = (a: fc.Arbitrary<unknown>) => a.map((v) => ({ body: JSON.stringify(v), base64: false, contentType: 'application/json' }));
  const raw = (a: fc.Arbitrary<string>) =>
    fc
      .tuple(a, fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/vnd.x+json'))
      .map(([body, contentType]) => ({ body, base64: false, contentType }));
  const none = fc.constant({ base64: false });
  if (key === 'POST /api/storage/upload') return fc.oneof({ weight: 4, arbitrary: multipart }, raw(hostileBodyText(undefined)), none);
  if (!handler.spec.body) {
    return route.method === 'GET'
      ? fc.oneof({ weight: 4, arbitrary: none }, raw(anyString(100)))
      : fc.oneof(none, json(fc.jsonValue({ maxDepth: 3 })), raw(hostileBodyText(undefined)));
  }
  const schema = jsonSchemaOf(handler.spec.body);
  return fc.oneof({ weight: 6, arbitrary: json(valueFor(schema, `${key} body`)) }, { weight: 2, arbitrary: raw(hostileBodyText(schema)) }, none);
}

function paramsFor(route: Route, handler: Endpoint, part: 'query' | 'params'): fc.Arbitrary<Record<string, string> | undefined> {
  const spec = handler.spec[part];
  const generic = fc.option(
    extraStrings.map((e) => ownKeys(e) as Record<string, string>),
    { nil: undefined },
  );
  if (!spec) return generic;
  const schema = jsonSchemaOf(spec);
  return fc.oneof({ weight: 5, arbitrary: valueFor(schema, `${route.method} ${route.path} ${part}`).map(asStrings) }, { weight: 1, arbitrary: generic });
}

function eventFor(route: Route, handler: Endpoint): fc.Arbitrary<Event> {
  return fc
    .record({
      body: bodyFor(route, handler),
      query: paramsFor(route, handler, 'query'),
      params: paramsFor(route, handler, 'params'),
      session: fc.constantFrom('live', 'live', 'live', 'none', 'unknown', 'hostile'),
      hostileCookie: anyString(80),
      origin: fc.option(fc.constantFrom('same', 'https://evil.example', 'null', ''), { nil: undefined }),
      idempotencyKey: fc.option(fc.oneof(fc.uuid(), anyString(300)), { nil: undefined }),
      extraHeaders: extraStrings,
    })
    .map((r) => {
      const path = route.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(Buffer.from(r.params?.[name] ?? '').toString()));
      const headers: Record<string, string> = { ...ownKeys(r.extraHeaders.map(([k, v]) => [k.toLowerCase(), v])) } as Record<string, string>;
      if (r.body.contentType) headers['content-type'] = r.body.contentType;
      if (r.origin !== undefined) headers.origin = r.origin === 'same' ? rt.url : r.origin;
      if (r.idempotencyKey !== undefined) headers['idempotency-key'] = r.idempotencyKey;
      const cookies = {
        live: [`shroud_session=${session}`],
        none: undefined,
        unknown: ['shroud_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
        hostile: [r.hostileCookie, `shroud_session=${r.hostileCookie}`],
      }[r.session];
      const e = eventOf({ method: route.method, path, headers, cookies, query: r.query, params: r.params, body: r.body.body });
      e.isBase64Encoded = r.body.base64;
      e.rawQueryString = new URLSearchParams(r.query ?? {}).toString();
      return e;
    });
}

/** What the fuzzer sent, short enough to read in a failure. (A lone surrogate cannot be in a URL: it goes as U+FFFD, as a client would send it.) */
const describeEvent = (e: Event) =>
  JSON.stringify({
    path: e.rawPath,
    headers: e.headers,
    cookies: e.cookies,
    query: e.queryStringParameters,
    params: e.pathParameters,
    body: e.body?.slice(0, 600),
  });

describe('every route under generated requests', () => {
  for (const route of routes) {
    it(`${route.method} ${route.path}: never ≥ 500, every 4xx {error, message}`, { timeout: 600_000 }, async () => {
      const handler = handlers.get(route)!;
      await fc.assert(
        fc.asyncProperty(eventFor(route, handler), async (e) => {
          const sent = describeEvent(e);
          // A request that never answers is a finding too (a Lambda would time out): fail it, don't hang.
          let timer: NodeJS.Timeout | undefined;
          const res = await Promise.race([
            handler(e),
            new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_MS} ms for ${sent}`)), ANSWER_MS))),
          ]).finally(() => clearTimeout(timer));
          const status = res.statusCode ?? 200;
          expect(status, `${status} ${res.body?.slice(0, 300)} for ${sent}`).toBeLessThan(500);
          if (status >= 400) {
            const body = JSON.parse(res.body ?? '');
            expect(Object.keys(body).sort(), sent).toEqual(['error', 'message']);
            expect(typeof body.error).toBe('string');
            expect(typeof body.message).toBe('string');
          }
        }),
        { numRuns: runsFor(route), seed: SEED, endOnFailure: true },
      );
    });
  }
});
