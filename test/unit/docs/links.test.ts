import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorOf } from '#lib/ai/corpus.ts';

/** Every relative link of README.md and docs/*.md reaches a file, and a heading of it when it names one. */
const root = join(import.meta.dirname, '..', '..', '..');
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/**
 * Pages written on other branches of the same change (issue 37): linked already, checked like any
 * page once they are here.
 */
const PARALLEL = new Set(['docs/cli.md', 'docs/deploy.md', 'docs/chain-faults.md', 'docs/value-moves.md', 'docs/concurrency.md']);

function anchors(file: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(join(root, file), 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^#{1,6} (.+)$/.exec(line);
    if (m) out.add(anchorOf(m[1]!));
  }
  return out;
}

describe('the documentation links', () => {
  it('README.md stays an entry (at most ~300 lines), with the two commands first', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    const head = readme.split('\n').slice(0, 20).join('\n');
    expect(head).toContain('npm ci && npm start');
    expect(head).toContain('npm test');
  });

  for (const page of pages) {
    it(`${page}: every relative link resolves`, () => {
      const text = readFileSync(join(root, page), 'utf8').replace(/```[\s\S]*?```/g, '');
      const broken: string[] = [];
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [path, anchor] = target!.split('#');
        const file = path ? relative(root, normalize(join(root, dirname(page), path))) : page;
        if (!existsSync(join(root, file))) {
          if (!PARALLEL.has(file)) broken.push(`${target} (no ${file})`);
          continue;
        }
        if (anchor && file.endsWith('.md') && !anchors(file).has(anchor)) broken.push(`${target} (no heading #${anchor} in ${file})`);
      }
      expect(broken).toEqual([]);
    });
  }
});
