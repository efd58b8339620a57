#!/usr/bin/env node
// `npm run audit`: the production dependency tree (`npm audit --omit=dev`) has no high or critical
// advisory that the allow-list (.ci/audit-allowlist.json, each entry with its reason) does not name.
// Where the registry's advisory service cannot be reached (an offline machine, a mirror that only
// serves GET), it says so plainly and exits 0 — unless AUDIT_REQUIRED=1, where it fails.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SEVERE = new Set(['high', 'critical']);

/** The advisories of an `npm audit --json` report that are high or critical and not allowed. */
export function unallowed(report, allowlist) {
  const allowed = new Set((allowlist.allow ?? []).map((a) => a.advisory));
  const out = [];
  for (const [name, v] of Object.entries(report.vulnerabilities ?? {})) {
    if (!SEVERE.has(v.severity)) continue;
    for (const via of v.via ?? []) {
      if (typeof via !== 'object') continue; // a transitive mention; the advisory itself is listed under its package
      const id = via.url ?? String(via.source);
      if (SEVERE.has(via.severity) && !allowed.has(id)) out.push({ package: name, severity: via.severity, advisory: id, title: via.title, range: via.range });
    }
  }
  return out;
}

/** Whether every allow-list entry carries a reason. */
export const allowlistProblems = (allowlist) =>
  (allowlist.allow ?? []).filter((a) => !a.advisory || !a.package || !a.reason || String(a.reason).trim().length < 10);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const allowlist = JSON.parse(readFileSync(join(root, '.ci', 'audit-allowlist.json'), 'utf8'));
  const bad = allowlistProblems(allowlist);
  if (bad.length) {
    console.error(`audit: allow-list entries without an advisory, a package or a reason: ${JSON.stringify(bad)}`);
    process.exit(1);
  }
  let text;
  try {
    text = execFileSync('npm', ['audit', '--omit=dev', '--json'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 120_000 });
  } catch (e) {
    text = e.stdout ?? ''; // npm audit exits 1 when it finds anything
  }
  let report;
  try {
    report = JSON.parse(text);
  } catch {
    report = { error: { summary: 'no JSON from npm audit' } };
  }
  if (report.error || report.statusCode) {
    const why = report.message ?? report.error?.summary ?? 'unknown error';
    console.log(`audit: the advisory service could not be reached (${why}); nothing was checked`);
    process.exit(process.env.AUDIT_REQUIRED === '1' ? 1 : 0);
  }
  const found = unallowed(report, allowlist);
  for (const f of found) console.log(`audit: ${f.severity} ${f.package} ${f.range ?? ''} ${f.advisory} ${f.title ?? ''}`);
  const counts = report.metadata?.vulnerabilities ?? {};
  console.log(`audit: production tree: ${JSON.stringify(counts)}; ${found.length} high or critical not allowed`);
  process.exit(found.length ? 1 : 0);
}
