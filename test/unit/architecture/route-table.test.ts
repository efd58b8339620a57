import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routes } from '#functions/routes.ts';
import { groups } from '#lib/http/groups.ts';
import { operationIdOf } from '#lib/openapi/document.ts';
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

  it('operation ids are unique; a row names its own only where its file name would give another', () => {
    const ids = routes.map(operationIdOf);
    expect(ids.length).toBe(new Set(ids).size);
    const needless = routes.filter((r) => r.operationId !== undefined && r.operationId === operationIdOf({ ...r, operationId: undefined }));
    expect(needless.map((r) => r.handler)).toEqual([]);
    // The storage deletes kept their published ids when their files were renamed (delete-a, delete-b).
    expect(ids).toContain('storageDeleteA');
    expect(ids).toContain('storageDeleteB');
    expect(operationIdOf({ ...routes[0]!, handler: 'functions/zk-toolkit/field-add.ts', operationId: undefined })).toBe('zkToolkitFieldAdd');
  });
});
