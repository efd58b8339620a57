/** The `shroud` binary (lib/cli/shroud.mjs, as `npx shroud` runs it) in child processes, for the CLI tests. */
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';

export const BIN = new URL('../../lib/cli/shroud.mjs', import.meta.url).pathname;

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
export interface RunOptions {
  configDir?: string;
  input?: string;
}

/** Runs the binary against `apiUrl` with its own config directory under `home` (Node 22, as npm scripts run it). */
export function shroudRunner(apiUrl: () => string, home: string) {
  const env = (o: RunOptions) => ({ ...process.env, SHROUD_CONFIG_DIR: o.configDir ?? join(home, 'config'), SHROUD_API_URL: apiUrl(), NO_COLOR: '1' });

  function shroud(args: string[], opts: RunOptions = {}): Promise<Run> {
    return new Promise((ok) => {
      const child = execFile(process.execPath, [BIN, ...args], { env: env(opts), timeout: 120_000, cwd: home }, (err, stdout, stderr) =>
        ok({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
      if (opts.input !== undefined) child.stdin!.end(opts.input);
      else child.stdin!.end();
    });
  }

  const json = async (args: string[], opts?: RunOptions) => {
    const r = await shroud([...args, '--json'], opts);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return JSON.parse(r.stdout);
  };

  /**
   * The binary with its stderr readable while it runs: `waitFor` resolves with the first match of
   * a pattern in what it printed so far (for the sign-in URL), `done` with the whole run.
   */
  function live(args: string[], opts: RunOptions = {}) {
    const child = spawn(process.execPath, [BIN, ...args], { env: env(opts), cwd: home, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const watchers: { re: RegExp; ok: (m: RegExpMatchArray) => void }[] = [];
    const check = () => {
      for (const w of [...watchers]) {
        const m = stderr.match(w.re);
        if (m) watchers.splice(watchers.indexOf(w), 1), w.ok(m);
      }
    };
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => ((stderr += d), check()));
    const timer = setTimeout(() => child.kill(), 120_000);
    const done = new Promise<Run>((ok) => child.on('close', (code) => (clearTimeout(timer), ok({ code: code ?? 1, stdout, stderr }))));
    return {
      waitFor: (re: RegExp) =>
        new Promise<RegExpMatchArray>((ok, fail) => {
          watchers.push({ re, ok });
          check();
          void done.then((r) => fail(new Error(`exited ${r.code} before printing ${re}: ${r.stderr}`)));
        }),
      done,
    };
  }

  return { shroud, json, live };
}
