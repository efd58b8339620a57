/** lib/cli/loopback.ts: the one-shot listener of `shroud login --provider`, on the real loopback interface. */
import { describe, expect, it } from 'vitest';
import { exitCodeOf } from '#lib/cli/commands.ts';
import { listenOnLoopback } from '#lib/cli/loopback.ts';

describe('listenOnLoopback', () => {
  it('listens on 127.0.0.1 on a port of its own, answers only /callback with a code or an error, and closes', async () => {
    const a = await listenOnLoopback(10_000);
    const b = await listenOnLoopback(10_000);
    expect(a.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(b.redirectUri).not.toBe(a.redirectUri);
    const base = new URL(a.redirectUri);
    expect((await fetch(new URL('/favicon.ico', base))).status).toBe(404);
    expect((await fetch(a.redirectUri)).status).toBe(404); // neither code nor error: not the way back
    expect((await fetch(a.redirectUri, { method: 'POST' })).status).toBe(404);
    const page = await fetch(`${a.redirectUri}?code=abc`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(await page.text()).toContain('Signed in');
    expect((await a.result).get('code')).toBe('abc');
    await a.close();
    await expect(fetch(a.redirectUri)).rejects.toThrow();

    const refused = await fetch(`${b.redirectUri}?error=AUTH_FAILED`);
    expect(refused.status).toBe(400);
    expect((await b.result).get('error')).toBe('AUTH_FAILED');
    await b.close();
  });

  it('gives up after its time limit: AUTH_TIMEOUT, exit 3', async () => {
    const l = await listenOnLoopback(50);
    const err = await l.result.catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'AUTH_TIMEOUT' });
    expect(exitCodeOf(err)).toBe(3);
    await l.close();
  });
});
