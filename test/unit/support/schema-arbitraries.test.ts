import fc from 'fast-check';
import { z } from 'zod';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { routes } from '#functions/routes.ts';
import type { Endpoint } from '#lib/http/endpoint.ts';
import { accepts, hostileBodyText, invalid, jsonSchemaOf, valid } from '../../support/schema-arbitraries.ts';

/** The fuzzer's generator, checked against zod itself: valid values parse, invalid ones never do. */
const point = z.object({ x: z.string().regex(/^[0-9]{1,78}$/), y: z.string().regex(/^[0-9]{1,78}$/) });
const everything = z.object({
  name: z
    .string()
    .min(3)
    .max(32)
    .regex(/^[A-Za-z0-9_.-]+$/),
  id: z.uuid(),
  note: z.string().max(10).optional(),
  level: z.enum(['low', 'high']).default('low'),
  count: z.number().int().min(2).max(255),
  ratio: z.number().min(0).max(1).optional(),
  flag: z.boolean().optional(),
  tags: z.array(z.string().max(5)).min(1).max(4),
  pair: z.tuple([z.string(), z.literal('1')]),
  points: z.union([z.tuple([point, point]), point]),
  context: z.record(z.string(), z.unknown()).optional(),
  anything: z.unknown(),
});
const s = jsonSchemaOf(everything);
const SEED = 20261123;

describe('schema arbitraries', () => {
  it('valid values (extra and prototype keys included) parse', () => {
    fc.assert(
      fc.property(valid(s, { extras: true }), (v) => {
        expect(everything.safeParse(v).error).toBeUndefined();
      }),
      { numRuns: 300, seed: SEED },
    );
  });

  it('invalid values never parse, and each is one step from valid', () => {
    fc.assert(
      fc.property(invalid(s), (v) => {
        expect(everything.safeParse(v).success).toBe(false);
      }),
      { numRuns: 500, seed: SEED },
    );
  });

  it('the checker agrees with zod on both kinds', () => {
    fc.assert(
      fc.property(fc.oneof(valid(s, { extras: true }), invalid(s)), (v) => {
        expect(accepts(s, v)).toBe(everything.safeParse(v).success);
      }),
      { numRuns: 300, seed: SEED },
    );
  });

  it('prototype keys arrive as own keys, not as the prototype', () => {
    const seen = fc.sample(valid(s, { extras: true }), { numRuns: 300, seed: SEED }) as object[];
    expect(seen.some((v) => Object.hasOwn(v, '__proto__'))).toBe(true);
    expect(seen.every((v) => Object.getPrototypeOf(v) === Object.prototype)).toBe(true);
  });

  it('hostile texts include prototype keys spliced into a valid body and deep nesting', () => {
    const texts = fc.sample(hostileBodyText(s), { numRuns: 300, seed: SEED });
    expect(texts.some((t) => t.startsWith('{"__proto__":'))).toBe(true);
    expect(texts.some((t) => t.startsWith('[[[[[[[[[['))).toBe(true);
  });
});

/** Schemas whose refinements JSON Schema cannot carry: the fuzzer gives these routes real examples (`around`). */
const REFINED: Record<string, string> = {
  'POST /api/auth/register body': 'base64 of a given decoded length; a real Ed25519 public key',
  'POST /api/auth/upgrade-legacy body': 'base64 of a given decoded length; a real Ed25519 public key',
  'POST /api/chainb/submit-proof body': 'base64 of a given decoded length',
  'GET /api/proofs query': 'from/to: ISO 8601 or epoch milliseconds, checked by Date.parse and a year range',
  'GET /api/proofs/export query': 'from/to: ISO 8601 or epoch milliseconds, checked by Date.parse and a year range',
  'POST /api/attest body': 'group: one canonical uuid spelling; signals: canonical decimals below the field order r (lib/attest/canonical.ts)',
  'POST /api/attest/:id/revoke body': "the issuer's signature: canonical decimals below the field order r (lib/attest/canonical.ts)",
};

describe('on every route schema', async () => {
  // The signing groups read their custody settings at import: a local key directory of their own.
  const dataDir = mkdtempSync(join(tmpdir(), 'shroud-schemas-'));
  process.env.DATA_DIR ??= dataDir;
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const specs: [string, z.ZodType][] = [];
  for (const r of routes) {
    const { handler } = (await import(/* @vite-ignore */ `../../../${r.handler}`)) as { handler: Endpoint };
    for (const part of ['body', 'query', 'params'] as const) if (handler.spec[part]) specs.push([`${r.method} ${r.path} ${part}`, handler.spec[part]]);
  }

  it.each(specs)('%s: invalid never parses; valid mostly does (refinements aside)', (name, schema) => {
    const js = jsonSchemaOf(schema);
    fc.assert(
      fc.property(invalid(js), (v) => {
        expect(schema.safeParse(v).success).toBe(false);
      }),
      { numRuns: 60, seed: SEED },
    );
    const samples = fc.sample(valid(js, { extras: true }), { numRuns: 60, seed: SEED });
    const parsed = samples.filter((v) => schema.safeParse(v).success).length;
    if (!REFINED[name]) expect(parsed / samples.length).toBeGreaterThan(0.2);
  });
});
