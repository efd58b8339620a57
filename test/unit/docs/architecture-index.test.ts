import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routes } from '#functions/routes.ts';
import { groups } from '#lib/http/groups.ts';
import { expectGeneratedFile } from '../../support/generated.ts';

/**
 * docs/architecture.md's index, from which a newcomer reaches any route, job or emulator in one
 * step: the routes' and jobs' tables are generated here (rewritten, and the test fails, when stale:
 * commit the page); the emulators' table is written by hand and checked against the tree.
 */
const root = join(import.meta.dirname, '..', '..', '..');
const page = join(root, 'docs/architecture.md');

/** The page that documents each route group. */
const groupPage: Record<string, string> = {
  init: 'architecture.md#the-route-groups',
  'bug-reports': 'architecture.md#the-route-groups',
  auth: 'identity.md#identity-and-sessions-apiauth',
  chainb: 'identity.md#chain-b-identity-proofs-apichainb',
  zkauth: 'identity.md#social-login-apizkauth',
  'zk-toolkit': 'zk.md#zk-toolkit-apizk-toolkit',
  storage: 'storage.md',
  wallets: 'wallets.md#wallets-apiwallets',
  compression: 'wallets.md#compression-apicompression',
  attest: 'attest.md',
  proofs: 'identity.md#proof-history-apiproofs',
  bridge: 'bridge.md',
  transfer: 'transfer.md',
  swap: 'swap.md',
  rewards: 'rewards.md',
  ai: 'assistant.md',
  docs: 'api.md',
};

/** The `lib/` modules a file imports, but the plumbing every handler shares. */
function libImports(file: string): string[] {
  const src = readFileSync(join(root, file), 'utf8');
  const mods = [...src.matchAll(/from '#(lib\/[^']+)'/g)].map((m) => m[1]!);
  return [...new Set(mods.filter((m) => !/^lib\/(http|openapi)\/|^lib\/(log|errors|tracer|metrics|observability)\.ts$/.test(m)))];
}

const code = (s: string) => `\`${s}\``;
const link = (file: string) => `[${file}](../${file})`;

function routesIndex(): string {
  const out: string[] = [];
  for (const group of Object.keys(groups)) {
    const rows = routes.filter((r) => r.group === group);
    if (!rows.length) continue;
    out.push(`#### ${code(group)} ([docs](${groupPage[group]}))`, '', '| route | handler | auth | calls |', '|---|---|---|---|');
    for (const r of rows) out.push(`| ${code(`${r.method} ${r.path}`)} | ${link(r.handler)} | ${r.auth} | ${libImports(r.handler).map(code).join(', ')} |`);
    out.push('');
  }
  return ['### Routes', '', ...out].join('\n');
}

const jobFiles = () =>
  readdirSync(join(root, 'functions/scheduled'))
    .filter((f) => f.endsWith('.ts'))
    .sort();

/** The first sentence of a job's doc comment: what calls it, and how often. */
function summary(file: string): string {
  const doc = /\/\*\*([\s\S]*?)\*\//.exec(readFileSync(join(root, file), 'utf8').replace(/\/\*\* Twelve[^\n]*\n/, ''))?.[1] ?? '';
  const text = doc
    .replace(/\n\s*\*\s?/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return (/^.*?\.(?=\s|$)/.exec(text)?.[0] ?? text).replace(/\|/g, '\\|');
}

/** Where a job is declared: the CDK files (and a jobs table, once there is one) that name its file. */
const declarers = ['cdk/stack.ts', 'cdk/replicas.ts', 'functions/jobs.ts', 'lib/local/runtime.ts'];

function jobsIndex(): string {
  const out = ['| job | what calls it | calls | declared in |', '|---|---|---|---|'];
  for (const f of jobFiles()) {
    const file = `functions/scheduled/${f}`;
    const where = declarers.filter((d) => existsSync(join(root, d)) && readFileSync(join(root, d), 'utf8').includes(file));
    out.push(`| ${link(file)} | ${summary(file)} | ${libImports(file).map(code).join(', ')} | ${where.map(code).join(', ')} |`);
  }
  return out.join('\n');
}

/** Every error code of lib/errors.ts by status, as a table (read by the assistant too: `generated:`, not `index:`). */
function errorsTable(): string {
  const src = readFileSync(join(root, 'lib/errors.ts'), 'utf8');
  const byStatus = new Map<number, string[]>();
  for (const [, code, status] of src.matchAll(/new AppError\('([A-Z_]+)', (\d{3})/g)) {
    const codes = byStatus.get(Number(status)) ?? [];
    if (!codes.includes(code!)) codes.push(code!);
    byStatus.set(Number(status), codes);
  }
  const rows = [...byStatus].sort(([a], [b]) => a - b).map(([status, codes]) => `| ${status} | ${codes.map(code).join(', ')} |`);
  return ['| status | codes |', '|---|---|', ...rows].join('\n');
}

/** Replaces what stands between `<!-- KIND:NAME:begin -->` and its end marker. */
function fill(doc: string, name: string, body: string, kind = 'index'): string {
  const begin = `<!-- ${kind}:${name}:begin -->`;
  const end = `<!-- ${kind}:${name}:end -->`;
  const a = doc.indexOf(begin);
  const b = doc.indexOf(end);
  expect(a >= 0 && b > a, `docs/architecture.md has the ${name} markers`).toBe(true);
  return `${doc.slice(0, a + begin.length)}\n${body}\n${doc.slice(b)}`;
}

function walk(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((f) => {
    const p = `${dir}/${f}`;
    return statSync(join(root, p)).isDirectory() ? walk(p) : [p];
  });
}

describe("docs/architecture.md's index", () => {
  it('lists every route of functions/routes.ts, every job of functions/scheduled/ and every error code of lib/errors.ts (a stale list is rewritten and the test fails: commit it)', () => {
    const doc = readFileSync(page, 'utf8');
    for (const g of Object.keys(groups)) expect(groupPage[g], `the page of group ${g}`).toBeDefined();
    const fresh = fill(fill(fill(doc, 'routes', routesIndex()), 'jobs', jobsIndex()), 'errors', errorsTable(), 'generated');
    expectGeneratedFile(page, fresh, 'docs/architecture.md had a stale index and has been regenerated: commit it');
  });

  it('names every emulator file, and every file it names exists', () => {
    const doc = readFileSync(page, 'utf8');
    const section = doc.slice(doc.indexOf('### Emulators and local adapters'));
    // Everything under lib/local/ but compiled classes, and every local adapter beside production code.
    const emulators = [
      ...walk('lib/local').filter((f) => !f.endsWith('.class')),
      ...walk('lib').filter((f) => /\/local[-.][^/]*$/.test(f) && !f.startsWith('lib/local/')),
    ];
    const missing = emulators.filter((f) => !section.includes(code(f)));
    expect(missing, 'emulator files missing from the table').toEqual([]);
    const named = [...doc.matchAll(/`((?:lib|functions|cdk|test|circuits)\/[\w./-]+\.(?:ts|cjs|mjs|java|json))`/g)].map((m) => m[1]!);
    const gone = [...new Set(named)].filter((f) => !existsSync(join(root, f)));
    expect(gone, 'files docs/architecture.md names that do not exist').toEqual([]);
  });

  it("states every route group's rate limit as lib/http/groups.ts sets it", () => {
    const doc = readFileSync(page, 'utf8');
    for (const [name, g] of Object.entries(groups)) expect(doc, `the rate limit of ${name}`).toMatch(new RegExp(`\\n\\| ${name} \\| ${g.rateLimit} \\|`));
  });
});
