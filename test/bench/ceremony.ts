import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `npm run bench -- ceremony`: a whole development ceremony (`npm run ceremony -- dev`) on a
 * scratch copy of circuits/ (CEREMONY_DIR, nothing committed is touched): the compile, phase 1
 * (2^BENCH_CEREMONY_POWER, default 13 as shipped: two contributions, the beacon and the phase-2
 * preparation) and, per circuit, phase 2's first key, each contribution, and the beacon with the
 * full check (`zkey verify` and an example proof). Times are wall seconds from the ceremony's own log.
 * BENCH_CEREMONY_ONLY=a,b limits it to some circuits (with a smaller power for a quick look).
 */
const ROOT = join(import.meta.dirname, '..', '..');
const power = process.env.BENCH_CEREMONY_POWER ?? '13';
const only = process.env.BENCH_CEREMONY_ONLY ? ['--only', process.env.BENCH_CEREMONY_ONLY] : [];
const scratch = join(ROOT, 'circuits', 'build', `bench-ceremony-${process.pid}`);
mkdirSync(scratch, { recursive: true });
for (const f of readdirSync(join(ROOT, 'circuits')).filter((f) => f.endsWith('.circom'))) copyFileSync(join(ROOT, 'circuits', f), join(scratch, f));

const lines: string[] = [];
function run(script: string, ...args: string[]): Promise<number> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, script), ...args], { cwd: ROOT, env: { ...process.env, CEREMONY_DIR: scratch } });
    let rest = '';
    const take = (chunk: Buffer) => {
      rest += chunk.toString();
      const parts = rest.split('\n');
      rest = parts.pop()!;
      for (const l of parts) if (/\[(ceremony|circuits)\]/.test(l)) lines.push(l);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', fail);
    child.on('close', (code) => done(code ?? 1));
  });
}

try {
  const t0 = performance.now();
  if ((await run('circuits/build.ts', ...only)) !== 0) throw new Error(`npm run circuits failed:\n${lines.join('\n')}`);
  const compiled = (performance.now() - t0) / 1000;
  const beacon = 'b'.repeat(64);
  if ((await run('circuits/ceremony/cli.ts', 'dev', '--power', power, '--beacon', beacon, ...only)) !== 0)
    throw new Error(`ceremony failed:\n${lines.join('\n')}`);
  const seconds = (re: RegExp) =>
    lines
      .map((l) => re.exec(l))
      .filter(Boolean)
      .map((m) => Number(m![1]));
  const rows: Record<string, string | number>[] = [];
  for (const l of lines) {
    const c = /\[circuits\] (\w+): (\d+) constraints.*\(([\d.]+) s\)/.exec(l);
    if (c) rows.push({ circuit: c[1]!, constraints: Number(c[2]), 'compile s': Number(c[3]) });
  }
  for (const row of rows) {
    const name = row.circuit as string;
    row['first key s'] = seconds(new RegExp(`\\[ceremony\\] ${name}: first key: ([\\d.]+) s`))[0] ?? '';
    row['contributions s'] = seconds(new RegExp(`\\[ceremony\\] ${name}: contribution of .*\\(([\\d.]+) s\\)`)).join(' + ');
    row['beacon + check s'] = seconds(new RegExp(`\\[ceremony\\] ${name}: finalized and verified: ([\\d.]+) s`))[0] ?? '';
  }
  console.log(`ceremony: development, phase 1 at 2^${power} with 2 contributions and a beacon; compile ${compiled.toFixed(1)} s`);
  console.log(`phase 1 (contributions, beacon, prepare phase 2): ${seconds(/\[ceremony\] phase 1: ([\d.]+) s/)[0]} s`);
  console.table(rows);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
