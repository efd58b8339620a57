/**
 * The Node side of the loopback login (RFC 8252 §7.3): a one-shot HTTP server on 127.0.0.1 on a
 * port the system picks, waiting for the browser to come back to `/callback` with the handoff code,
 * and the browser opened on the sign-in URL.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ShroudError } from '#lib/client/api.ts';
import type { LoopbackListener } from '#lib/client/oauth-loopback.ts';

const PAGE = (ok: boolean) =>
  `<!doctype html><meta charset="utf-8"><title>Shroud</title><body style="font:16px system-ui;margin:3em">` +
  `<h1>${ok ? 'Signed in' : 'Sign-in failed'}</h1><p>${ok ? 'You can close this tab and go back to the terminal.' : 'Go back to the terminal and try again.'}</p></body>`;

export function listenOnLoopback(timeoutMs = 5 * 60_000): Promise<LoopbackListener> {
  let settle: { ok: (q: URLSearchParams) => void; fail: (e: Error) => void };
  const result = new Promise<URLSearchParams>((ok, fail) => (settle = { ok, fail }));
  result.catch(() => {}); // the caller awaits it; a close before that is not an unhandled rejection
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== '/callback' || (!url.searchParams.has('code') && !url.searchParams.has('error'))) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const ok = url.searchParams.has('code');
    res.writeHead(ok ? 200 : 400, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', connection: 'close' }).end(PAGE(ok));
    settle.ok(url.searchParams);
  });
  const timer = setTimeout(() => settle.fail(new ShroudError('AUTH_TIMEOUT', 401, `no sign-in came back within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      ok({
        redirectUri: `http://127.0.0.1:${port}/callback`,
        result,
        close: () =>
          new Promise<void>((done) => {
            clearTimeout(timer);
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** The system's browser on `url`; false when there is none to start (no display, no opener). */
export function openBrowser(url: string): Promise<boolean> {
  const [cmd, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]];
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return Promise.resolve(false);
  return new Promise((ok) => {
    const child = spawn(cmd, args as string[], { stdio: 'ignore', detached: true });
    child.once('error', () => ok(false));
    child.once('spawn', () => (child.unref(), ok(true)));
  });
}
