import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { brotliCompressSync, gzipSync } from 'node:zlib';

/**
 * The browser terminal's synth-time build (cdk/build-web-site.ts, as the web hosting construct's
 * asset runs it): wall time of a fresh process, 3 runs, and the files' sizes raw, gzip and brotli
 * (what CloudFront's compression sends). Prints numbers, asserts nothing.
 */
const root = join(import.meta.dirname, '..', '..');
const runs: number[] = [];
let dir = '';
for (let i = 0; i < 3; i++) {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = mkdtempSync(join(tmpdir(), 'shroud-site-'));
  const started = performance.now();
  const out = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'cdk', 'build-web-site.ts'), dir], { cwd: root, encoding: 'utf8' });
  runs.push((performance.now() - started) / 1000);
  if (out.status !== 0) throw new Error(out.stderr);
  if (i === 0) console.log(out.stderr.trim());
}
console.log(`synth-time site build (fresh process, 3 runs): ${runs.map((s) => s.toFixed(2)).join(' s, ')} s`);
const files = (d: string): string[] => readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? files(join(d, f)) : [join(d, f)]));
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
for (const f of files(dir)) {
  const bytes = readFileSync(f);
  console.log(
    `${relative(dir, f).padEnd(34)} raw ${kib(bytes.length).padStart(11)}  gzip ${kib(gzipSync(bytes, { level: 9 }).length).padStart(10)}  brotli ${kib(brotliCompressSync(bytes).length).padStart(10)}`,
  );
}
rmSync(dir, { recursive: true, force: true });
