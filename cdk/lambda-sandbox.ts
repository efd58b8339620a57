/**
 * A function's asset as Lambda's nodejs22.x runtime sees it, on this machine: the asset directory
 * alone, linked (or copied) into a directory outside the repository, where the only packages a
 * bare import reaches are `@aws-sdk/*` (the runtime's copy of the SDK; this machine's is the
 * lockfile's), its layers merged into an `opt` directory that stands for /opt, and the process
 * environment the runtime sets plus the template's. An asset that imports anything it did not
 * bundle fails here as it would on AWS (in the repository, node_modules would hide that).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { copyFileSync, linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { environmentOf, nodeFunctions, placeholderResolver, type SynthesizedFunction } from './cloud-assembly.ts';

const repoRoot = join(import.meta.dirname, '..');
/** The runtime's helpers (plain JavaScript: the `awslambda` global and the loader). */
export const RUNTIME_DIR = join(import.meta.dirname, 'lambda-runtime');
/** What Lambda's nodejs runtimes set themselves; the template cannot override these. */
const REGION = 'us-east-1';

export interface Sandbox {
  root: string;
  /** Lays out one function: its task directory and its /opt. */
  place(fn: SynthesizedFunction, index: number): { taskDir: string; optDir: string };
  remove(): void;
}

/** A sandbox root: `node_modules` holding links to this machine's `@aws-sdk/*` packages and nothing else. */
export function createSandbox(parent = tmpdir()): Sandbox {
  const root = mkdtempSync(join(parent, 'shroud-lambda-'));
  const sdk = join(repoRoot, 'node_modules', '@aws-sdk');
  mkdirSync(join(root, 'node_modules', '@aws-sdk'), { recursive: true });
  for (const pkg of readdirSync(sdk)) symlinkSync(join(sdk, pkg), join(root, 'node_modules', '@aws-sdk', pkg), 'dir');
  return {
    root,
    place(fn, index) {
      const base = join(root, `fn-${index}`);
      const taskDir = join(base, 'task');
      const optDir = join(base, 'opt');
      mirror(fn.assetDir, taskDir);
      mkdirSync(optDir, { recursive: true });
      for (const layer of fn.layerDirs) mirror(layer, optDir);
      return { taskDir, optDir };
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** Hard links where the file system allows them (a 1 GB assembly is not copied), copies elsewhere. */
function mirror(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const [src, dst] = [join(from, name), join(to, name)];
    if (statSync(src).isDirectory()) mirror(src, dst);
    else {
      try {
        linkSync(src, dst);
      } catch {
        copyFileSync(src, dst);
      }
    }
  }
}

/**
 * The environment of the function's process: what the runtime sets (region, function name and
 * memory, task root, TZ, …; placeholder credentials, as the role's would be), then the template's,
 * with `/opt` paths moved to the sandbox's opt directory.
 */
export function runtimeEnvironment(
  fn: SynthesizedFunction,
  templateEnv: Record<string, string>,
  dirs: { taskDir: string; optDir: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  const fromTemplate = Object.fromEntries(
    Object.entries(templateEnv).map(([k, v]) => [k, v === '/opt' || v.startsWith('/opt/') ? dirs.optDir + v.slice(4) : v]),
  );
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
    AWS_REGION: REGION,
    AWS_DEFAULT_REGION: REGION,
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    AWS_LAMBDA_FUNCTION_NAME: fn.name,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.name}`,
    AWS_LAMBDA_LOG_STREAM_NAME: 'local',
    AWS_ACCESS_KEY_ID: 'AKIDLOCALSANDBOX',
    AWS_SECRET_ACCESS_KEY: 'local-sandbox-secret',
    AWS_SESSION_TOKEN: 'local-sandbox-session',
    LAMBDA_TASK_ROOT: dirs.taskDir,
    _HANDLER: fn.handler,
    ...extra,
    ...fromTemplate,
  };
}

export interface LoadResult {
  ok: boolean;
  ms?: number;
  streaming?: boolean;
  error?: string;
}

/**
 * The answer a runtime helper (cdk/lambda-runtime/*.mjs) prints last, a line `{"ok"…}`; else why
 * there is none: killed after `timeoutMs` (`timedOut`), or its exit code and the end of its stderr.
 */
function answerOf<T>(
  child: ChildProcessByStdio<Writable | null, Readable, Readable>,
  timeoutMs: number,
  timedOut: string,
): Promise<T | { ok: false; error: string }> {
  return new Promise((done) => {
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const last = out
        .trim()
        .split('\n')
        .reverse()
        .find((l) => l.startsWith('{"ok"'));
      try {
        if (last) return done(JSON.parse(last) as T);
      } catch (e) {
        return done({ ok: false, error: `unreadable answer: ${(e as Error).message}` });
      }
      done({ ok: false, error: signal ? `${timedOut} in ${timeoutMs / 1000} s` : `exit ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}` });
    });
  });
}

/** Imports the handler in a process of its own (cdk/lambda-runtime/load.mjs); `timeoutMs` bounds a hung init. */
export function loadInProcess(fn: SynthesizedFunction, env: Record<string, string>, taskDir: string, timeoutMs = 60_000): Promise<LoadResult> {
  // NODE_OPTIONS is the template's (e.g. --enable-source-maps), as the runtime passes it on.
  const child = spawn(process.execPath, [join(RUNTIME_DIR, 'load.mjs'), taskDir, fn.handler], { cwd: taskDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  return answerOf<LoadResult>(child, timeoutMs, 'init did not finish');
}

export interface CheckedFunction {
  fn: SynthesizedFunction;
  result: LoadResult;
}

/** Loads every function of the assembly in `outdir`, `concurrency` at a time. */
export async function checkAssets(outdir: string, opts: { concurrency?: number; onResult?: (c: CheckedFunction) => void } = {}): Promise<CheckedFunction[]> {
  const fns = nodeFunctions(outdir);
  const sandbox = createSandbox();
  const results: CheckedFunction[] = [];
  try {
    let next = 0;
    const worker = async () => {
      while (next < fns.length) {
        const index = next++;
        const fn = fns[index]!;
        let result: LoadResult;
        try {
          const dirs = sandbox.place(fn, index);
          result = await loadInProcess(fn, runtimeEnvironment(fn, environmentOf(fn, placeholderResolver), dirs), dirs.taskDir);
        } catch (e) {
          result = { ok: false, error: (e as Error).message };
        }
        const checked = { fn, result };
        results.push(checked);
        opts.onResult?.(checked);
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency ?? Math.max(1, availableParallelism()) }, worker));
  } finally {
    sandbox.remove();
  }
  return results;
}

/** One init and one invocation of a buffered handler in a process of its own (cdk/lambda-runtime/invoke.mjs). */
export function invokeInProcess(
  fn: SynthesizedFunction,
  env: Record<string, string>,
  taskDir: string,
  event: unknown,
  timeoutMs = 60_000,
): Promise<{ ok: boolean; result?: unknown; error?: string }> {
  const child = spawn(process.execPath, [join(RUNTIME_DIR, 'invoke.mjs'), taskDir, fn.handler], {
    cwd: taskDir,
    env: { ...env, SHROUD_SANDBOX_TIMEOUT_MS: String(fn.timeoutSeconds * 1000) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end(JSON.stringify(event));
  return answerOf<{ ok: boolean; result?: unknown; error?: string }>(child, timeoutMs, 'did not finish');
}
