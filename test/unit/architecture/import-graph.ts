import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/** The repository's own TypeScript modules and what each imports, as repository-relative paths. */
export type ImportGraph = Map<string, Set<string>>;

export const repoRoot = join(dirname(new URL(import.meta.url).pathname), '..', '..', '..');

const SPECIFIER = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function listTs(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(repoRoot, dir))) {
    const rel = join(dir, name);
    if (statSync(join(repoRoot, rel)).isDirectory()) out.push(...listTs(rel));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** `#lib/x.ts`, `#functions/x.ts` and relative specifiers resolve to files; packages are left out. */
function resolveSpecifier(from: string, spec: string): string | undefined {
  if (spec.startsWith('#lib/')) return normalize(join('lib', spec.slice(5)));
  if (spec.startsWith('#functions/')) return normalize(join('functions', spec.slice(11)));
  if (spec.startsWith('.')) return normalize(join(dirname(from), spec));
  return undefined;
}

/** Static imports, re-exports and dynamic `import('…')` with a literal specifier, comments stripped. */
export function importsOf(file: string, source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const found: string[] = [];
  for (const m of code.matchAll(SPECIFIER)) {
    const target = resolveSpecifier(file, m[1] ?? m[2] ?? m[3]!);
    if (target) found.push(target);
  }
  return found;
}

export function buildImportGraph(dirs: string[] = ['functions', 'lib', 'cdk']): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of dirs.flatMap(listTs)) {
    graph.set(file, new Set(importsOf(file, readFileSync(join(repoRoot, file), 'utf8'))));
  }
  return graph;
}

/** Strongly connected components with more than one node, or a node importing itself (Tarjan). */
export function cycles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || graph.get(v)?.has(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/**
 * The layer a file belongs to: `functions`, `cdk`, `lib/<folder>` for a folder of lib, and
 * `lib/<file>` for the shared files at lib's top (errors, log, config, clock, init).
 */
export function layerOf(file: string): string {
  const parts = relative(repoRoot, join(repoRoot, file)).split('/');
  if (parts[0] !== 'lib') return parts[0]!;
  return parts.length > 2 ? `lib/${parts[1]}` : `lib/${parts[1]!.replace(/\.ts$/, '')}`;
}

/** The same graph between layers (edges inside a layer dropped). */
export function layerGraph(graph: ImportGraph): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = layerOf(file);
    if (!out.has(from)) out.set(from, new Set());
    for (const t of targets) {
      const to = layerOf(t);
      if (to !== from) out.get(from)!.add(to);
    }
  }
  return out;
}
