/**
 * The API reference reads (issue 40): every operation has a summary and a description of its own,
 * every tag a description, every JSON request body an example its route's schema accepts, the
 * security of each route as the route table has it, and no component left unused (Redocly's
 * recommended rules; `.ci/run` lints the document with them, redocly.yaml).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { routes } from '#functions/routes.ts';
import { openApiPath } from '#lib/openapi/document.ts';
import { bodyExample, sample } from '#lib/openapi/examples.ts';
import { OPERATION_TEXT } from '#lib/openapi/operation-text.ts';

type Op = {
  summary: string;
  description: string;
  tags: string[];
  security: unknown[];
  'x-session'?: string;
  requestBody?: { content: Record<string, { example?: unknown }> };
};
const doc = JSON.parse(readFileSync(new URL('../../functions/docs/openapi.json', import.meta.url), 'utf8')) as {
  info: Record<string, unknown>;
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Op>>;
  components: Record<string, Record<string, unknown>>;
};
const ops = Object.entries(doc.paths).flatMap(([path, byMethod]) =>
  Object.entries(byMethod).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
);

describe('the API reference', () => {
  it('every operation has its own summary and a description (not "METHOD path")', () => {
    expect(ops).toHaveLength(routes.length);
    for (const { key, op } of ops) {
      expect(op.summary, key).toBe(OPERATION_TEXT[key]!.summary);
      expect(op.summary, key).not.toMatch(/^(GET|POST|PUT|PATCH|DELETE) \//);
      expect(op.description.length, key).toBeGreaterThan(40);
      expect(op.description, key).toMatch(/Sign-in: (required|not needed)/);
    }
    expect(new Set(ops.map((o) => o.op.summary)).size).toBe(ops.length); // no two alike
    expect(Object.keys(OPERATION_TEXT).sort()).toEqual(routes.map((r) => `${r.method} ${openApiPath(r.path)}`).sort()); // none left over
  });

  it('every tag has a description; /api/init needs no sign-in (no lock) and says the session is optional', () => {
    for (const tag of doc.tags) expect(tag.description, tag.name).toMatch(/^[A-Z].{20,}/);
    expect(new Set(ops.flatMap((o) => o.op.tags))).toEqual(new Set(doc.tags.map((t) => t.name)));
    const init = doc.paths['/api/init']!.get!;
    expect(init.security).toEqual([]);
    expect(init['x-session']).toBe('optional');
    expect(doc.paths['/api/storage/files']!.get!.security).toEqual([{ session: [] }]);
  });

  it('every JSON request body has an example', () => {
    const withBody = ops.filter((o) => o.op.requestBody?.content['application/json']);
    expect(withBody.length).toBeGreaterThan(50);
    for (const { key, op } of withBody) expect(op.requestBody!.content['application/json']!.example, key).toBeDefined();
  });

  it('an example its schema refuses stops the generator; the sampler follows patterns and bounds', () => {
    const body = z.object({ walletId: z.string().uuid(), amount: z.number().positive().max(100), hash: z.string().regex(/^0x[0-9a-f]{64}$/) });
    const schema = z.toJSONSchema(body, { io: 'input' }) as Record<string, unknown>;
    expect(body.safeParse(sample(schema)).success).toBe(true);
    expect(() => bodyExample('POST /x', schema, z.object({ n: z.number() }))).toThrow(/the example of POST \/x is refused by its schema/);
  });

  it('no component is unused and no required property is left undefined (Redocly recommended)', () => {
    const text = JSON.stringify(doc);
    for (const kind of ['schemas', 'responses', 'headers', 'parameters']) {
      for (const name of Object.keys(doc.components[kind] ?? {})) expect(text, `${kind}/${name}`).toContain(`"#/components/${kind}/${name}"`);
    }
    const walk = (node: unknown, at: string): void => {
      if (!node || typeof node !== 'object') return;
      const s = node as { required?: unknown; properties?: Record<string, unknown> };
      if (Array.isArray(s.required) && s.required.every((k) => typeof k === 'string') && !Array.isArray(node)) {
        for (const k of s.required as string[]) expect(s.properties ?? {}, `${at}: required ${k}`).toHaveProperty(k);
      }
      for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
    };
    walk(doc.paths, '#/paths');
    walk(doc.components.schemas, '#/components/schemas');
  });
});
