import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './import-graph.ts';

/**
 * One file, one job: no hand-written source file under lib/, functions/, cdk/ or circuits/ is
 * longer than 400 lines (docs/architecture.md, "The file shape of a domain"). A file that grows
 * past it is split along that shape (the HTTP edge, the service, the worker; an emulator by
 * concern). Generated files (`*.generated.ts`, written by a script and checked against it) are
 * exempt. Files git tracks, and new ones it does not ignore, are counted.
 */
const MAX_LINES = 400;
const ROOTS = ['lib', 'functions', 'cdk', 'circuits'];
const SOURCE = /\.(ts|mts|cts|tsx|js|mjs|cjs)$/;
const GENERATED = /\.generated\.ts$/;

const linesOf = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** `file (n lines)` for each source file over the limit. */
function overLimit(files: { path: string; text: string }[], max = MAX_LINES): string[] {
  return files
    .filter((f) => SOURCE.test(f.path) && !GENERATED.test(f.path))
    .flatMap((f) => (linesOf(f.text) > max ? [`${f.path} (${linesOf(f.text)} lines)`] : []));
}

function sourceFiles(): { path: string; text: string }[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...ROOTS], { cwd: repoRoot, encoding: 'utf8' });
  return listed
    .split('\n')
    .filter((p) => SOURCE.test(p))
    .flatMap((p) => {
      try {
        return [{ path: p, text: readFileSync(join(repoRoot, p), 'utf8') }];
      } catch {
        return []; // deleted in the working tree, not yet in the index
      }
    });
}

describe('file sizes', () => {
  it(`keeps every hand-written source file under lib/, functions/, cdk/ and circuits/ at ${MAX_LINES} lines or fewer`, () => {
    const files = sourceFiles();
    // Sanity: the walk sees the tree (the route table, a handler, the stack, the circuits' build).
    expect(files.map((f) => f.path)).toEqual(expect.arrayContaining(['functions/routes.ts', 'cdk/stack.ts', 'circuits/build.ts']));
    expect(overLimit(files)).toEqual([]);
  });

  it('counts lines as an editor does, and exempts only generated files', () => {
    const body = (n: number) => 'x\n'.repeat(n);
    expect(
      overLimit([
        { path: 'lib/a.ts', text: body(400) },
        { path: 'lib/b.ts', text: body(401) },
        { path: 'lib/c.cjs', text: `${body(400)}y` },
        { path: 'lib/d.generated.ts', text: body(900) },
        { path: 'lib/e.md', text: body(900) },
      ]),
    ).toEqual(['lib/b.ts (401 lines)', 'lib/c.cjs (401 lines)']);
  });
});
