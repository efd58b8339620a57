/**
 * The synthesized functions as Lambda runs them, on this machine: each in processes of its own
 * (cdk/lambda-runtime/host.mjs) started in its sandbox (cdk/lambda-sandbox.ts: its asset alone,
 * only `@aws-sdk/*` resolvable, its layers at the sandbox's /opt), with the environment its
 * template gives it. An instance takes one invocation at a time, as a Lambda instance does; a
 * busy function gets another instance (up to `maxPerFunction`), and past `maxWarm` instances in
 * all the least recently used idle one is stopped (as Lambda reclaims idle instances).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { SynthesizedFunction } from './cloud-assembly.ts';
import { RUNTIME_DIR, type Sandbox } from './lambda-sandbox.ts';

const INIT_TIMEOUT_MS = 60_000;

export type InvokeOutcome = { kind: 'result'; result: unknown } | { kind: 'stream'; bytes: AsyncIterable<Buffer> };

interface Instance {
  child: ChildProcess;
  busy: boolean;
  lastUsed: number;
  fn: HostedFunction;
}

interface HostedFunction {
  fn: SynthesizedFunction;
  env: Record<string, string>;
  taskDir: string;
  instances: Instance[];
  waiting: ((i: Instance) => void)[];
}

type Message = { id?: number; ok?: boolean; result?: unknown; error?: string; chunk?: string; end?: boolean; ready?: boolean };

export class AssetHost {
  private readonly fns = new Map<string, HostedFunction>();
  private nextId = 1;
  private stopped = false;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly opts: { maxPerFunction?: number; maxWarm?: number; onLog?: (fn: string, line: string) => void } = {},
  ) {}

  /** Places `fn`'s asset in the sandbox with `env` (the runtime's and the template's, resolved); no process starts until it is invoked. */
  add(fn: SynthesizedFunction, env: (dirs: { taskDir: string; optDir: string }) => Record<string, string>): void {
    const dirs = this.sandbox.place(fn, this.fns.size);
    this.fns.set(fn.name, { fn, env: env(dirs), taskDir: dirs.taskDir, instances: [], waiting: [] });
  }

  has(name: string): boolean {
    return this.fns.has(name);
  }

  /** One invocation of the function called `name` (its FunctionName), bounded by its timeout as Lambda bounds it. */
  async invoke(name: string, event: unknown): Promise<InvokeOutcome> {
    const hosted = this.fns.get(name);
    if (!hosted) throw new Error(`no function ${name} in the assembly`);
    const instance = await this.acquire(hosted);
    const id = this.nextId++;
    const timeoutMs = hosted.fn.timeoutSeconds * 1000;
    const { child } = instance;
    return new Promise<InvokeOutcome>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let wake: (() => void) | undefined;
      let done = false;
      let failure: Error | undefined;
      let streaming = false;
      const finish = (err?: Error) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (err) {
          failure = err;
          // A timed-out or crashed instance is not reused: Lambda discards it too.
          if (child.exitCode === null) child.kill('SIGKILL');
          hosted.instances = hosted.instances.filter((i) => i !== instance);
        } else this.release(instance);
        wake?.();
        if (!streaming) err ? reject(err) : undefined;
      };
      const onMessage = (m: Message) => {
        if (m.id !== id) return;
        if (m.chunk !== undefined) {
          if (!streaming) {
            streaming = true;
            resolve({ kind: 'stream', bytes: drain() });
          }
          chunks.push(Buffer.from(m.chunk, 'base64'));
          wake?.();
          return;
        }
        if (m.ok === false) return finish(new Error(`${name}: ${m.error}`));
        if (m.end) {
          if (!streaming) {
            streaming = true;
            resolve({ kind: 'stream', bytes: drain() });
          }
          return finish();
        }
        resolve({ kind: 'result', result: m.result });
        finish();
      };
      const onExit = (code: number | null) => finish(new Error(`${name}: the instance exited (${code}) during the invocation`));
      async function* drain(): AsyncGenerator<Buffer> {
        for (;;) {
          while (chunks.length) yield chunks.shift()!;
          if (done) {
            if (failure) throw failure;
            return;
          }
          await new Promise<void>((r) => (wake = r));
          wake = undefined;
        }
      }
      const timer = setTimeout(() => finish(new Error(`${name}: Task timed out after ${hosted.fn.timeoutSeconds} seconds`)), timeoutMs + 500);
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send({ id, event, timeoutMs });
    });
  }

  private acquire(hosted: HostedFunction): Promise<Instance> {
    const idle = hosted.instances.find((i) => !i.busy);
    if (idle) {
      idle.busy = true;
      return Promise.resolve(idle);
    }
    if (hosted.instances.length < (this.opts.maxPerFunction ?? 4)) return this.initialized(this.spawn(hosted));
    return new Promise((ok) => hosted.waiting.push(ok));
  }

  /**
   * A new instance once its init is done: the invocation's timeout starts after it, as on Lambda.
   * Lambda bounds an init at 10 s; on this shared machine a bundle's import may take longer, so
   * the bound here is INIT_TIMEOUT_MS, and a failed init fails the invocation that waited for it.
   */
  private initialized(instance: Instance): Promise<Instance> {
    return new Promise((ok, fail) => {
      const { child } = instance;
      const done = (err?: Error) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (!err) return ok(instance);
        if (child.exitCode === null) child.kill('SIGKILL');
        fail(err);
      };
      const onMessage = (m: Message) => {
        if (m.ready === true) done();
        else if (m.ready === false) done(new Error(`${instance.fn.fn.name}: init failed: ${m.error}`));
      };
      const onExit = (code: number | null) => done(new Error(`${instance.fn.fn.name}: the instance exited (${code}) during its init`));
      const timer = setTimeout(() => done(new Error(`${instance.fn.fn.name}: init did not finish in ${INIT_TIMEOUT_MS / 1000} s`)), INIT_TIMEOUT_MS);
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  }

  private release(instance: Instance): void {
    instance.lastUsed = Date.now();
    const next = instance.fn.waiting.shift();
    if (next) {
      next(instance);
      return;
    }
    instance.busy = false;
  }

  private spawn(hosted: HostedFunction): Instance {
    if (this.stopped) throw new Error('the asset host is stopped');
    this.reclaim();
    const child = fork(join(RUNTIME_DIR, 'host.mjs'), [hosted.taskDir, hosted.fn.handler], {
      cwd: hosted.taskDir,
      env: hosted.env,
      // NODE_OPTIONS is the template's, as the runtime passes it on; none of this process's flags (tsx's loader).
      execArgv: [],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    const log = (d: Buffer) => {
      for (const line of String(d).split('\n')) if (line.trim()) this.opts.onLog?.(hosted.fn.name, line);
    };
    child.stdout?.on('data', log);
    child.stderr?.on('data', log);
    const instance: Instance = { child, busy: true, lastUsed: Date.now(), fn: hosted };
    child.once('exit', () => (hosted.instances = hosted.instances.filter((i) => i !== instance)));
    hosted.instances.push(instance);
    return instance;
  }

  /** Past `maxWarm` instances, the least recently used idle one goes. */
  private reclaim(): void {
    const all = [...this.fns.values()].flatMap((f) => f.instances);
    if (all.length < (this.opts.maxWarm ?? 24)) return;
    const idle = all.filter((i) => !i.busy).sort((a, b) => a.lastUsed - b.lastUsed)[0];
    if (!idle) return;
    idle.fn.instances = idle.fn.instances.filter((i) => i !== idle);
    idle.child.kill('SIGTERM');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const all = [...this.fns.values()].flatMap((f) => f.instances);
    await Promise.all(
      all.map(
        (i) =>
          new Promise<void>((ok) => {
            if (i.child.exitCode !== null || i.child.signalCode !== null) return ok();
            i.child.once('exit', () => ok());
            i.child.kill('SIGTERM');
            setTimeout(() => i.child.kill('SIGKILL'), 2000).unref();
          }),
      ),
    );
  }
}
