import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, repoRoot } from './import-graph.ts';

/**
 * Items are decoded, not cast: `as unknown as` (a cast that defeats the type checker) has no
 * place in lib/, and only lib/data talks to DynamoDB. lib/http and lib/zk are being reworked
 * under their own rules (issue 10, sections 2 and 5) and are left out of the cast check.
 */
const CAST_EXEMPT = ['lib/http/', 'lib/zk/'];
/** Talks to DynamoDB outside lib/data: the local runtime (creates the table) and, until it moves to lib/data/rate-counters.ts, the rate limiter. */
const DYNAMODB_EXEMPT = ['lib/data/', 'lib/local/'];

function listTs(dir: string): string[] {
  return readdirSync(join(repoRoot, dir)).flatMap((name) => {
    const rel = join(dir, name);
    if (statSync(join(repoRoot, rel)).isDirectory()) return listTs(rel);
    return name.endsWith('.ts') ? [rel] : [];
  });
}

const withoutComments = (src: string) => src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

/** `file:line` of every `as unknown as` in the code (comments do not count). */
function castsIn(file: string, source: string): string[] {
  return withoutComments(source)
    .split('\n')
    .flatMap((line, i) => (/\bas\s+unknown\s+as\b/.test(line) ? [`${file}:${i + 1}`] : []));
}

const DYNAMODB_MODULES = /^@aws-sdk\/(client-dynamodb|lib-dynamodb)$/;
const PACKAGE_IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/g;

/** Whether the file imports the DynamoDB SDK or lib/data's raw client and item operations. */
function talksToDynamo(file: string, source: string): boolean {
  const code = withoutComments(source);
  if ([...code.matchAll(PACKAGE_IMPORT)].some((m) => DYNAMODB_MODULES.test(m[1]!))) return true;
  return importsOf(file, source).some((t) => t === 'lib/data/client.ts' || t === 'lib/data/items.ts');
}

const libFiles = listTs('lib');

describe('no casts through unknown', () => {
  it('finds none in lib/ outside lib/http and lib/zk', () => {
    const found = libFiles.filter((f) => !CAST_EXEMPT.some((p) => f.startsWith(p))).flatMap((f) => castsIn(f, readFileSync(join(repoRoot, f), 'utf8')));
    expect(found).toEqual([]);
  });

  it('the checker finds a cast in code and not in a comment', () => {
    const src = ['// x as unknown as Y in a comment', 'const a = b as  unknown  as Session;', '/* as unknown as */ const c = 1;'].join('\n');
    expect(castsIn('f.ts', src)).toEqual(['f.ts:2']);
  });
});

describe('only lib/data talks to DynamoDB', () => {
  it('no domain module imports the DynamoDB SDK, the client or the raw item operations', () => {
    const offenders = [...libFiles.filter((f) => f.startsWith('lib/') && !f.endsWith('.d.ts')), ...listTs('functions')]
      .filter((f) => !DYNAMODB_EXEMPT.some((p) => f.startsWith(p)))
      .filter((f) => talksToDynamo(f, readFileSync(join(repoRoot, f), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('the checker sees SDK and lib/data imports', () => {
    expect(talksToDynamo('lib/x/a.ts', "import { UpdateCommand } from '@aws-sdk/lib-dynamodb';")).toBe(true);
    expect(talksToDynamo('lib/x/a.ts', "import { getItem } from '#lib/data/items.ts';")).toBe(true);
    expect(talksToDynamo('lib/x/a.ts', "import { getUser } from '#lib/data/users.ts';")).toBe(false);
  });
});
