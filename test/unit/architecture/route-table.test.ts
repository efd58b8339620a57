import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routes } from '#functions/routes.ts';
import { groups } from '#lib/http/groups.ts';
import { repoRoot } from './import-graph.ts';

/** The route table is the single source of truth: every row's handler declares that row, and no handler hides outside the table. */
const DECLARES = /routeOf\(\s*'([A-Z]+)'\s*,\s*'([^']+)'\s*\)/g;

describe('the route table and the handler files', () => {
  it("each row's handler file exists and declares exactly that route", () => {
    const wrong: string[] = [];
    for (const r of routes) {
      const file = join(repoRoot, r.handler);
      if (!existsSync(file)) {
        wrong.push(`${r.method} ${r.path}: ${r.handler} is missing`);
        continue;
      }
      const declared = [...readFileSync(file, 'utf8').matchAll(DECLARES)].map((m) => `${m[1]} ${m[2]}`);
      if (declared.length !== 1 || declared[0] !== `${r.method} ${r.path}`) {
        wrong.push(`${r.method} ${r.path}: ${r.handler} declares [${declared.join(', ')}]`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('every handler file under functions/<group>/ belongs to one row, and the folder is its group', () => {
    const rowsByFile = new Map<string, number>();
    for (const r of routes) rowsByFile.set(r.handler, (rowsByFile.get(r.handler) ?? 0) + 1);
    // functions/scheduled/ holds functions run on a schedule (EventBridge), never routes.
    const files = readdirSync(join(repoRoot, 'functions'))
      .filter((d) => d !== 'scheduled' && statSync(join(repoRoot, 'functions', d)).isDirectory())
      .flatMap((d) =>
        readdirSync(join(repoRoot, 'functions', d))
          .filter((f) => f.endsWith('.ts'))
          .map((f) => `functions/${d}/${f}`),
      );
    expect(files.filter((f) => rowsByFile.get(f) !== 1)).toEqual([]);
    expect(routes.filter((r) => !r.handler.startsWith(`functions/${r.group}/`)).map((r) => r.handler)).toEqual([]);
  });

  it('has no duplicate method and path, and every group has its settings', () => {
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    expect(keys.length).toBe(new Set(keys).size);
    expect(routes.filter((r) => !(r.group in groups))).toEqual([]);
  });
});
