import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Process groups started here and not yet ended: killed when the test process exits, whatever happened (a test that timed out mid-start included). */
const live = new Set<number>();
const signalGroup = (pgid: number, signal: NodeJS.Signals): boolean => {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // already gone
  }
};
process.once('exit', () => {
  for (const pgid of live) signalGroup(pgid, 'SIGKILL');
});

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The one way tests start a runtime in a child process (`npm start` in test/support/npm-start.ts,
 * a bare `functions/local.ts` instance in test/support/instances.ts): `command` in a process group
 * of its own, from the repository root; resolves once it prints `listening on …`. Every signal
 * goes to the whole group (npm, tsx, node, DynamoDB Local's JVM), and a group still alive when
 * the test process exits is killed then, so no test leaves a process behind.
 */
export async function launchRuntime(command: string, args: string[], env: NodeJS.ProcessEnv, what = command) {
  const child: ChildProcess = spawn(command, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const pgid = child.pid!;
  live.add(pgid);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      signalGroup(pgid, 'SIGKILL');
      reject(new Error(`${what} did not listen within 90 s:\n${output}`));
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
      // Still in `live`: what it started may outlive it, and goes at the test process's exit.
      reject(new Error(`${what} exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    /** The process group's id (the launched command's pid): every process of this runtime is in it. */
    pgid,
    output: () => output,
    /** SIGKILL to the group, no goodbye: what a Lambda instance dying mid-request looks like. */
    async kill() {
      signalGroup(pgid, 'SIGKILL');
      await exited;
      live.delete(pgid);
    },
    /** SIGTERM to the group, SIGKILL after `graceMs`; resolves once the launched command has exited. */
    async stop(graceMs = 15_000) {
      // The whole group, also when the launched command has ended and what it started has not.
      if (!signalGroup(pgid, 'SIGTERM')) {
        live.delete(pgid);
        return;
      }
      const timer = setTimeout(() => signalGroup(pgid, 'SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
      live.delete(pgid);
    },
  };
}

/**
 * The real `npm start`, as a newcomer runs it, on PORT=0 with the given DATA_DIR (`env` is its
 * environment, `extra` set over PORT, DATA_DIR and the log level). Resolves once it prints
 * `listening on …`. `stop()` sends SIGTERM to its whole process group and waits until nothing runs
 * on the data directory. Used by test/support/npm-start.ts (a test file's own) and
 * test/support/shared-npm-start.ts (the run's one).
 */
export async function launchNpmStart(dataDir: string, env: NodeJS.ProcessEnv, extra: Record<string, string> = {}) {
  const run = await launchRuntime('npm', ['start', '--silent'], { ...env, PORT: '0', DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: 'ERROR', ...extra }, 'npm start');
  return {
    url: run.url,
    dataDir,
    pgid: run.pgid,
    output: run.output,
    async stop() {
      await run.stop();
      // npm, tsx, node and DynamoDB Local (java) all end: nothing keeps running on the data dir.
      for (let i = 0; i < 150 && processesUsing(dataDir).length; i++) await new Promise((ok) => setTimeout(ok, 100));
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
