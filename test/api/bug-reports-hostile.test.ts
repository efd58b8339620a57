import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { MAX_CONTEXT_DEPTH } from '#lib/reports/context.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/** Issue 11, item 7: a hostile `context` answers 400 with its reason, never 500, and is never stored. */
let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime();
});
afterAll(async () => {
  await rt?.stop();
});
beforeEach(() => advanceClock(61_000)); // 5 reports a minute per client

const nested = (levels: number) => {
  let text = '1';
  for (let i = 0; i < levels; i++) text = `{"a":${text}}`;
  return text;
};

/** Posts raw JSON text, as an attacker would (JSON.stringify of an object cannot even carry `__proto__`). */
const postRaw = (c: ReturnType<TestRuntime['client']>, contextJson: string) =>
  c.post('/api/bug-reports', undefined, { body: `{"title":"t","description":"d","context":${contextJson}}`, headers: { 'content-type': 'application/json' } });

describe('POST /api/bug-reports with a hostile context', () => {
  it.each([
    ['__proto__ at the top', '{"__proto__":{"isAdmin":true}}', /'__proto__' is not allowed/],
    ['constructor at the top', '{"constructor":{"prototype":{"x":1}}}', /'constructor' is not allowed/],
    ['prototype deep down', '{"a":{"b":[{"prototype":1}]}}', /'prototype' is not allowed.*a\.b\.0/],
    ['__proto__ inside an array', '{"list":[1,{"__proto__":null}]}', /'__proto__' is not allowed/],
    ['1,000 levels of nesting', nested(1000), /nest at most 8 levels/],
    ['one level too deep', nested(MAX_CONTEXT_DEPTH + 1), /nest at most 8 levels/],
    ['too many values', JSON.stringify({ xs: Array.from({ length: 1200 }, () => 0) }), /at most 1000 values/],
    ['too many bytes', JSON.stringify({ blob: 'x'.repeat(9000) }), /at most 8192 bytes/],
    ['not an object', '[1,2]', /must be a JSON object/],
  ])('%s → 400 INVALID_INPUT naming the reason; nothing stored', async (_name, context, reason) => {
    const c = rt.client();
    const res = await postRaw(c, context);
    expect(res.status, JSON.stringify(res.json)).toBe(400);
    expect(res.json.error).toBe('INVALID_INPUT');
    expect(res.json.message).toMatch(/^context: /);
    expect(res.json.message).toMatch(reason);
    expect((await c.get('/api/bug-reports')).json.reports ?? []).toEqual([]);
  });

  it('accepts plain data up to the limits and stores it as sent', async () => {
    const c = rt.client();
    const context = JSON.parse(`{"os":"linux","deep":${nested(MAX_CONTEXT_DEPTH - 2)},"keys":["constructor"],"proto_ok":"__proto__"}`);
    const res = await c.post('/api/bug-reports', { title: 't', description: 'd', context });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const [stored] = (await c.get('/api/bug-reports')).json.reports;
    expect(stored.context).toEqual(context);
  });

  it.each([
    ['an empty key', '{"":1}'],
    ['an empty key deeper down', '{"a":{"":1}}'],
    ["a number beyond DynamoDB's range", '{"a":1e100}'],
    ['a tiny number', '{"a":1e-200}'],
    ['a 41-digit integer', '{"a":12345678901234567890123456789012345678901}'],
  ])('stores %s exactly as JSON reads it, never a 500 (found by the fuzzer)', async (_name, context) => {
    const c = rt.client();
    const res = await postRaw(c, context);
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const [stored] = (await c.get('/api/bug-reports')).json.reports;
    expect(stored.context).toEqual(JSON.parse(context));
  });
});
