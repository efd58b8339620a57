import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { environmentOf, nodeFunctions, placeholderResolver, type SynthesizedFunction } from '../../cdk/cloud-assembly.ts';
import { createSandbox, runtimeEnvironment } from '../../cdk/lambda-sandbox.ts';

/**
 * `npm run bench -- cold-assets`: the cold import of every Node.js function of the synthesized
 * stack as the nodejs22.x runtime loads it (cdk/lambda-sandbox.ts: its asset directory alone, only
 * `@aws-sdk/*` resolvable, the template's environment), each in fresh processes one after another
 * (median of `COLD_RUNS`, default 3), wall and CPU time. Targets (issue 39): bundles ≤ 1 MB
 * ≤ 120 ms each, > 1 MB ≤ 300 ms each (a bundle: the function's module and every chunk it may
 * load). `CDK_OUT=<dir>` measures that assembly, else a fresh `cdk synth` is made; `COLD_ONLY=<regex>`
 * measures only the functions whose name matches.
 * Prints numbers, asserts nothing.
 */
const root = join(import.meta.dirname, '..', '..');
const runs = Number(process.env.COLD_RUNS ?? 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

function synth(): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), 'shroud-cold-bench-'));
  const cdk = join(root, 'node_modules', 'aws-cdk', 'bin', 'cdk');
  return new Promise<string>((done, fail) => {
    // The rehearsal stage (cdk/rehearsal.ts): a stage without chain A's RPC is a synth error.
    const child = spawn(process.execPath, [cdk, 'synth', '--quiet', '-o', out, '-c', 'rehearsal=true'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('close', (code) => (code === 0 ? done(out) : fail(new Error(`cdk synth failed (exit ${code})`))));
  });
}

/**
 * A function's bundle size: its module and every chunk it may load (static and `await import()`),
 * followed through the outputs' relative imports; a group's asset holds other functions' modules too.
 */
function bundleBytes(dir: string, module: string): number {
  const seen = new Set([`${module}.mjs`]);
  const visit = (file: string) => {
    for (const m of readFileSync(join(dir, file), 'utf8').matchAll(/["']\.\/(chunk-[A-Z0-9]+\.mjs)["']/g)) {
      if (seen.has(m[1]!)) continue;
      seen.add(m[1]!);
      visit(m[1]!);
    }
  };
  visit(`${module}.mjs`);
  return [...seen].reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

function importOnce(fn: SynthesizedFunction, env: Record<string, string>, taskDir: string): Promise<{ ms: number; cpuMs: number }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(import.meta.dirname, '_asset-import.mjs'), taskDir, fn.handler], {
      cwd: taskDir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('close', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code === 0 && last.startsWith('{')) done(JSON.parse(last) as { ms: number; cpuMs: number });
      else fail(new Error(`${fn.name}: exit ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
}

const given = process.env.CDK_OUT;
const outdir = given ?? (await synth());
const loadBefore = load();
// COLD_ONLY=<regex>: only the functions whose name matches (a before/after of one function).
const only = process.env.COLD_ONLY ? new RegExp(process.env.COLD_ONLY) : undefined;
const fns = nodeFunctions(outdir).filter((f) => !only || only.test(f.name));
const sandbox = createSandbox();
const rows: { name: string; kb: number; ms: number; cpuMs: number }[] = [];
const failures: string[] = [];
try {
  for (const [i, fn] of fns.entries()) {
    const dirs = sandbox.place(fn, i);
    const env = runtimeEnvironment(fn, environmentOf(fn, placeholderResolver), dirs);
    const samples: { ms: number; cpuMs: number }[] = [];
    try {
      for (let k = 0; k < runs; k++) samples.push(await importOnce(fn, env, dirs.taskDir));
    } catch (e) {
      failures.push((e as Error).message);
      continue;
    }
    rows.push({
      name: fn.name,
      kb: bundleBytes(fn.assetDir, fn.handler.slice(0, fn.handler.lastIndexOf('.'))) / 1024,
      ms: median(samples.map((s) => s.ms)),
      cpuMs: median(samples.map((s) => s.cpuMs)),
    });
  }
} finally {
  sandbox.remove();
  if (!given) rmSync(outdir, { recursive: true, force: true });
}

rows.sort((a, b) => b.ms - a.ms);
const groups = [
  { label: 'bundles ≤ 1 MB', target: 120, rows: rows.filter((r) => r.kb <= 1024) },
  { label: 'bundles > 1 MB', target: 300, rows: rows.filter((r) => r.kb > 1024) },
];
console.log(`cold import of each synthesized asset as nodejs22.x loads it (${fns.length} functions, median of ${runs} fresh processes each)`);
for (const g of groups) {
  if (!g.rows.length) continue;
  const over = g.rows.filter((r) => r.ms > g.target);
  const cpuOver = g.rows.filter((r) => r.cpuMs > g.target);
  const slowest = g.rows[0]!;
  const slowestCpu = [...g.rows].sort((a, b) => b.cpuMs - a.cpuMs)[0]!;
  console.log(
    `${g.label} (${g.rows.length}): median ${median(g.rows.map((r) => r.ms)).toFixed(0)} ms (CPU ${median(g.rows.map((r) => r.cpuMs)).toFixed(0)}), ` +
      `slowest ${slowest.ms.toFixed(0)} ms ${slowest.name} (${(slowest.kb / 1024).toFixed(1)} MB), in CPU ${slowestCpu.cpuMs.toFixed(0)} ms ${slowestCpu.name} — target ≤ ${g.target} ms each: ` +
      `${over.length ? `✘ ${over.length} over (${cpuOver.length} over in CPU time)` : '✔'}`,
  );
}
if (process.env.VERBOSE || rows.length <= 20)
  for (const r of rows) console.log(`  ${r.ms.toFixed(0).padStart(5)} ms ${r.cpuMs.toFixed(0).padStart(5)} CPU ${r.kb.toFixed(0).padStart(6)} KB  ${r.name}`);
else
  for (const r of rows.slice(0, 10))
    console.log(`  ${r.ms.toFixed(0).padStart(5)} ms ${r.cpuMs.toFixed(0).padStart(5)} CPU ${r.kb.toFixed(0).padStart(6)} KB  ${r.name}`);
for (const f of failures) console.log(`FAIL ${f}`);
console.log(`load average (1/5/15 min) before: ${loadBefore}; after: ${load()}`);
