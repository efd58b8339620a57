import { describe, expect, it } from 'vitest';
import { bugReportInput } from '#lib/reports/bug-reports.ts';
import { contextProblem, MAX_CONTEXT_DEPTH } from '#lib/reports/context.ts';

const deep = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
};

describe('contextProblem', () => {
  it('accepts plain data within the limits', () => {
    expect(contextProblem({ os: 'linux', list: [1, 'two', null, { ok: true }] })).toBeUndefined();
    expect(contextProblem(deep(MAX_CONTEXT_DEPTH))).toBeUndefined();
  });

  it('refuses depth beyond the limit, and a 100,000-level value without recursing', () => {
    expect(contextProblem(deep(MAX_CONTEXT_DEPTH + 1))).toMatch(/nest at most/);
    expect(contextProblem(deep(100_000))).toMatch(/nest at most/);
  });

  it('refuses prototype keys at any depth, including an own __proto__ made by JSON.parse', () => {
    expect(contextProblem(JSON.parse('{"__proto__":{"polluted":1}}'))).toMatch(/'__proto__'/);
    expect(contextProblem(JSON.parse('{"x":[{"y":{"constructor":1}}]}'))).toMatch(/'constructor'.*x\.0\.y/);
    expect(contextProblem({ prototype: 1 })).toMatch(/'prototype'/);
  });

  it('the request schema reports it under context and keeps the object as sent', () => {
    const bad = bugReportInput.safeParse(JSON.parse('{"title":"t","description":"d","context":{"__proto__":{"a":1}}}'));
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['context']);
    const good = bugReportInput.parse({ title: 't', description: 'd', context: { a: [1] } });
    expect(good.context).toEqual({ a: [1] });
    expect(bugReportInput.parse({ title: 't', description: 'd' }).context).toBeUndefined();
  });
});
