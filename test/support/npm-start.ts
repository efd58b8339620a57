import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** The DATA_DIRs made here (no dataDir given): removed after the test file, whose tests may restart on one. */
const ownDirs: string[] = [];
afterAll(() => {
  for (const dir of ownDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Process groups started here and not yet ended: killed when the test process exits, whatever happened (a test that timed out mid-start included). */
const live = new Set<number>();
const killGroup = (pid: number, signal: NodeJS.Signals) => {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
};
process.once('exit', () => {
  for (const pid of live) killGroup(pid, 'SIGKILL');
});

/**
 * The real `npm start`, as a newcomer runs it, on PORT=0 with the given DATA_DIR. Resolves once
 * it prints `listening on …`. `stop()` sends SIGTERM to its whole process group and waits.
 */
export async function npmStart(dataDir?: string, env: Record<string, string> = {}) {
  if (!dataDir) ownDirs.push((dataDir = mkdtempSync(join(tmpdir(), 'shroud-e2e-'))));
  const child: ChildProcess = spawn('npm', ['start', '--silent'], {
    cwd: join(import.meta.dirname, '..', '..'),
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: 'ERROR', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  live.add(child.pid!);
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(child.pid!, 'SIGKILL');
      reject(new Error(`npm start did not listen within 90 s:\n${output}`));
    }, 90_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      const m = output.match(/listening on (http:\/\/localhost:\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output}`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    dataDir,
    /** The process group's id (npm's pid): every process of this runtime is in it. */
    pgid: child.pid!,
    output: () => output,
    async stop() {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {}
      }, 15_000);
      await exited;
      clearTimeout(timer);
      // npm, tsx, node and DynamoDB Local (java) all end: nothing keeps running on the data dir.
      for (let i = 0; i < 150 && processesUsing(dataDir).length; i++) await new Promise((ok) => setTimeout(ok, 100));
      live.delete(child.pid!);
    },
    /** Processes still running whose command line names this runtime's DATA_DIR. */
    leftovers: () => processesUsing(dataDir),
  };
}

function processesUsing(dir: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(dir) && !l.includes('ps -eo'));
}
