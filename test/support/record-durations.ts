/**
 * Writes test/durations.json (each test file's wall time in ms, set-up included) from a vitest JSON
 * report, for test/support/sequencer.ts:
 *   npx vitest run --reporter=json --outputFile=/tmp/vitest-times.json && npm run -s test:durations -- /tmp/vitest-times.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..', '..');
const report = JSON.parse(readFileSync(process.argv[2] ?? '/tmp/vitest-times.json', 'utf8')) as {
  testResults: { name: string; startTime: number; endTime: number }[];
};
const durations = Object.fromEntries(
  report.testResults.map((r) => [relative(root, r.name), Math.round(r.endTime - r.startTime)] as const).sort((a, b) => b[1] - a[1]),
);
writeFileSync(resolve(root, 'test', 'durations.json'), `${JSON.stringify(durations, null, 2)}\n`);
console.log(`${Object.keys(durations).length} files`);
