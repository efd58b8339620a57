import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './ports.ts';

/** What to install when the emulator is missing (the machine image has it, with Python 3.11). */
export const MOTO_INSTALL_HINT =
  "moto_server was not found: install Moto's server with Python 3 (python3 -m pip install 'moto[server]'), or put moto_server on PATH";

export interface Moto {
  /** `http://127.0.0.1:<port>`: the endpoint of every service it emulates (KMS, SQS, Secrets Manager, EventBridge, …). */
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * Moto's server (`moto_server`, a Python program) on a free loopback port: the AWS services that
 * have no local stand-in of their own in this project (KMS data keys, SQS with its redrive, Secrets
 * Manager, EventBridge), for rehearsing the deployed code paths on this machine. In memory: its
 * state ends with it. Stopped with `stop()`, and killed if this process exits first.
 */
export async function startMoto(opts: { command?: string } = {}): Promise<Moto> {
  const command = opts.command ?? process.env.MOTO_SERVER ?? 'moto_server';
  const port = await freePort();
  const child: ChildProcess = spawn(command, ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d).slice(-2000)));
  let failed: Error | undefined;
  child.once('error', (e: NodeJS.ErrnoException) => (failed = e.code === 'ENOENT' ? new Error(MOTO_INSTALL_HINT) : e));
  child.once('exit', (code) => (failed ??= new Error(`moto_server exited (${code}) before it was ready: ${stderr.trim().split('\n').slice(-3).join(' | ')}`)));
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      process.off('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 3000).unref();
    });
  // Not ports.ts's waitFor: a missing program or an early exit ends the wait at once.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (failed) {
      await stop();
      throw failed;
    }
    const up = await fetch(`${endpoint}/moto-api/data.json`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`moto_server did not become ready in 60 s: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  return { endpoint, stop };
}
