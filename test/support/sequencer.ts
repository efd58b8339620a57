import { relative } from 'node:path';
import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Longest test files first, by the wall times recorded in test/durations.json (`npm run
 * test:durations` after a full `--reporter=json` run writes it). vitest hands files to its workers
 * in this order, so the long ones do not end up alone at the tail while the other worker idles.
 * vitest's own duration cache does this too, but it lives in node_modules and a fresh clone (CI)
 * has none; there files would go by size. A file not in the list goes first (it may be long).
 */
export class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    let recorded: Record<string, number> = {};
    try {
      recorded = JSON.parse(readFileSync(new URL('../durations.json', import.meta.url), 'utf8')) as Record<string, number>;
    } catch {
      return super.sort(files); // no list: vitest's own order
    }
    const ms = (f: TestSpecification) => recorded[relative(root, f.moduleId)] ?? Number.MAX_SAFE_INTEGER;
    return [...files].sort((a, b) => ms(b) - ms(a));
  }
}
