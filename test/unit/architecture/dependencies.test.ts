import { describe, expect, it } from 'vitest';
import { buildImportGraph, cycles, importsOf, layerGraph, layerOf } from './import-graph.ts';

/**
 * Dependencies run one way: functions/ → lib/<domain> → lib/data, lib/http → the shared files at
 * lib's top (errors, log, config, clock). A cycle or an arrow back up fails the build.
 */
const graph = buildImportGraph();
/** What the bottom layers may import: each other and the shared top-level files. */
const FOUNDATION = new Set(['lib/http', 'lib/data', 'lib/errors', 'lib/log', 'lib/config', 'lib/clock', 'lib/tracer', 'lib/metrics', 'lib/observability']);

describe('the import graph', () => {
  it('reads the project (sanity: the route table and the handler stack are in it)', () => {
    expect(graph.get('functions/routes.ts')?.has('lib/http/groups.ts')).toBe(true);
    expect(graph.size).toBeGreaterThan(100);
  });

  it('has no import cycle between files', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('has no cycle between lib folders', () => {
    const libOnly = new Map([...layerGraph(graph)].filter(([layer]) => layer.startsWith('lib/')));
    expect(cycles(libOnly)).toEqual([]);
  });

  it('never imports functions/, cdk/ or test/ from lib/', () => {
    const upward = [...graph]
      .filter(([file]) => file.startsWith('lib/'))
      .flatMap(([file, targets]) => [...targets].filter((t) => /^(functions|cdk|test)\//.test(t)).map((t) => `${file} → ${t}`));
    expect(upward).toEqual([]);
  });

  it('keeps the emulators (lib/local) out of the product: no lib/ folder but lib/local imports them', () => {
    // The embedded runtime installs them behind the ports (lib/local/adapters.ts → lib/chains/embedded.ts).
    const offenders = [...graph]
      .filter(([file]) => file.startsWith('lib/') && layerOf(file) !== 'lib/local')
      .flatMap(([file, targets]) => [...targets].filter((t) => layerOf(t) === 'lib/local').map((t) => `${file} → ${t}`));
    expect(offenders).toEqual([]);
    // Sanity: the runtime's entry does import them, so the check sees such an arrow.
    expect(graph.get('functions/local.ts')?.has('lib/local/runtime.ts')).toBe(true);
  });

  it('keeps the upload path free of lib/init.ts and the OAuth providers it loads', () => {
    const reached = new Set<string>();
    const stack = ['lib/storage/uploads.ts'];
    while (stack.length) {
      const f = stack.pop()!;
      if (reached.has(f)) continue;
      reached.add(f);
      stack.push(...(graph.get(f) ?? []));
    }
    expect(reached.size).toBeGreaterThan(5);
    expect([...reached].filter((f) => f === 'lib/init.ts' || f.startsWith('lib/auth/oauth/'))).toEqual([]);
  });

  it('keeps lib/http and lib/data free of domain folders', () => {
    const offenders = [...graph]
      .filter(([file]) => ['lib/http', 'lib/data'].includes(layerOf(file)))
      .flatMap(([file, targets]) => [...targets].filter((t) => !FOUNDATION.has(layerOf(t))).map((t) => `${file} → ${t}`));
    expect(offenders).toEqual([]);
  });

  it('keeps the shared top-level files at the bottom', () => {
    const offenders = [...graph]
      .filter(([file]) => ['lib/errors', 'lib/log', 'lib/config', 'lib/clock'].includes(layerOf(file)))
      .flatMap(([file, targets]) =>
        [...targets].filter((t) => !['lib/errors', 'lib/log', 'lib/config', 'lib/clock'].includes(layerOf(t))).map((t) => `${file} → ${t}`),
      );
    expect(offenders).toEqual([]);
  });
});

describe('the checker itself', () => {
  it('finds static, re-exported, side-effect and dynamic imports, and skips packages and comments', () => {
    const src = [
      "import { a } from '#lib/http/x.ts';",
      "export { b } from './y.ts';",
      "import './side.ts';",
      "const m = await import('#functions/routes.ts');",
      "import z from 'zod';",
      "// import { c } from './commented.ts';",
    ].join('\n');
    expect(importsOf('lib/auth/f.ts', src)).toEqual(['lib/http/x.ts', 'lib/auth/y.ts', 'lib/auth/side.ts', 'functions/routes.ts']);
  });

  it('reports a cycle and a self-import, not a chain', () => {
    const g = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['d'])],
      ['e', new Set(['a'])],
    ]);
    expect(cycles(g)).toEqual([['a', 'b', 'c'], ['d']]);
  });
});
