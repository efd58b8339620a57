import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

/**
 * `npm run bench -- synth`: `cdk synth` of the dev stage as `npm run synth` runs it, into a fresh
 * directory: wall time, the one esbuild run's share (cdk/function-bundles.ts reports it), the
 * assembly's size and asset count. The machine's load average beside them (the 2 cores are
 * shared: a number at load 20 is not one at load 1). Targets (issue 38): ≤ 60 s, ≤ 300 MB.
 * `SOURCE_MAPS=1` synthesizes with `-c sourceMaps=true`. Prints numbers, asserts nothing.
 */
const root = join(import.meta.dirname, '..', '..');
const out = mkdtempSync(join(tmpdir(), 'shroud-synth-bench-'));
const maps = process.env.SOURCE_MAPS === '1';
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const loadBefore = load();
const started = performance.now();
const cdk = join(root, 'node_modules', 'aws-cdk', 'bin', 'cdk');
const args = [cdk, 'synth', '--quiet', '-o', out, '-c', 'rehearsal=true', ...(maps ? ['-c', 'sourceMaps=true'] : [])];
const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'inherit', 'pipe'] });
let stderr = '';
child.stderr.on('data', (d: Buffer) => (stderr += d));
const code = await new Promise<number | null>((done) => child.on('close', done));
const seconds = (performance.now() - started) / 1000;
if (code !== 0) {
  console.error(stderr);
  rmSync(out, { recursive: true, force: true });
  throw new Error(`cdk synth failed (exit ${code})`);
}
const size = (p: string): number => (statSync(p).isDirectory() ? readdirSync(p).reduce((n, f) => n + size(join(p, f)), 0) : statSync(p).size);
const bytes = size(out);
const assets = readdirSync(out).filter((f) => f.startsWith('asset.')).length;
const bundled = /bundled \d+ functions in [\d.]+ s[^\n]*/.exec(stderr)?.[0];
console.log(`cdk synth${maps ? ' (source maps)' : ''}: ${seconds.toFixed(1)} s (target ≤ 60 s)${bundled ? `; ${bundled}` : ''}`);
console.log(`cdk.out: ${(bytes / 1e6).toFixed(0)} MB (target ≤ 300 MB), ${assets} assets`);
console.log(`load average (1/5/15 min) before: ${loadBefore}; after: ${load()}`);
rmSync(out, { recursive: true, force: true });
