/**
 * `shroud login --provider` as RFC 8252 says, with the real binary against the local runtime and
 * its local OpenID provider: the binary listens on 127.0.0.1, prints the sign-in URL
 * (`--no-browser`), this test plays the browser (follows every redirect with per-origin cookies:
 * the API's login, the provider's auto-approve, the callback, the loopback), the binary trades the
 * handoff code for the session and saves it (0600); `whoami` then works. A replayed code is refused.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { shroudRunner } from './binary.ts';
import { browse } from './browse.ts';

let rt: TestRuntime;
const home = mkdtempSync(join(tmpdir(), 'shroud-oauth-'));
beforeAll(async () => {
  rt = await startTestRuntime();
}, 120_000);
afterAll(async () => {
  await rt?.stop();
  rmSync(home, { recursive: true, force: true });
});
const { shroud, json, live } = shroudRunner(() => rt.url, home);

const URL_LINE = /open this URL in a browser to sign in:\n {2}(\S+)\n/;

describe('shroud login --provider (loopback, RFC 8252)', () => {
  it('login alone offers the password login and the enabled providers', { timeout: 60_000 }, async () => {
    const r = await shroud(['login']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('shroud login <username>');
    expect(r.stdout).toMatch(/sign in with GitHub:\s+shroud login --provider github/);
    expect(r.stdout).not.toContain('--provider discord'); // not configured here
    expect((await json(['login'])).providers.map((p: { id: string }) => p.id)).toEqual(['google', 'github', 'x', 'discord']);
    const unknown = await shroud(['login', '--provider', 'myspace', '--no-browser']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown provider 'myspace': use one of google, github, x");
  });

  it('signs in through the browser and the loopback; the session is saved 0600 and whoami works; the code works once', { timeout: 120_000 }, async () => {
    const run = live(['login', '--provider', 'github', 'dora', '--no-browser']);
    const signInUrl = new URL((await run.waitFor(URL_LINE))[1]!);
    expect(`${signInUrl.origin}${signInUrl.pathname}`).toBe(`${rt.url}/api/zkauth/login`);
    expect(signInUrl.searchParams.get('provider')).toBe('github');
    expect(signInUrl.searchParams.get('login_hint')).toBe('dora');
    expect(signInUrl.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signInUrl.searchParams.get('redirect')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);

    const browser = await browse(signInUrl.href);
    const loopback = browser.visited.at(-1)!;
    expect(`${loopback.origin}${loopback.pathname}`).toBe(signInUrl.searchParams.get('redirect'));
    expect(browser.status).toBe(200);
    expect(browser.body).toContain('Signed in');
    const code = loopback.searchParams.get('code')!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect([...loopback.searchParams.keys()]).toEqual(['code']); // no session id in any URL

    const done = await run.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/signed in with\s+GitHub/);
    expect(statSync(join(home, 'config', 'session.json')).mode & 0o777).toBe(0o600);
    const me = await json(['whoami']);
    expect(me).toMatchObject({ authenticated: true, user: { id: expect.any(String), username: null } });
    expect((await json(['proofs'])).email).toBe('dora@example.com');

    // The code caught from the loopback URL, replayed: refused with a clear code, no session made.
    const replay = await fetch(`${rt.url}/api/zkauth/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, code_verifier: 'a'.repeat(43) }),
    });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toEqual({ error: 'INVALID_HANDOFF', message: 'unknown, expired or already used handoff code' });
    expect(replay.headers.getSetCookie()).toEqual([]);
  });

  it('a sign-in refused at the callback comes back to the loopback as an error: exit 3, nothing saved', { timeout: 120_000 }, async () => {
    advanceClock(61_000); // a fresh rate-limit window
    const configDir = join(home, 'refused');
    const run = live(['login', '--provider', 'google', '--no-browser'], { configDir });
    const signInUrl = new URL((await run.waitFor(URL_LINE))[1]!);
    // The provider answers with an error instead of a code (the person said no).
    const start = await fetch(signInUrl, { redirect: 'manual' });
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const cookie = start.headers.getSetCookie()[0]!.split(';')[0]!;
    const callback = await fetch(`${rt.url}/api/zkauth/callback/google?state=${state}&error=access_denied`, { headers: { cookie }, redirect: 'manual' });
    const back = new URL(callback.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('AUTH_FAILED');
    expect((await browse(back.href)).status).toBe(400);
    const done = await run.done;
    expect(done.code).toBe(3);
    expect(done.stderr).toContain('AUTH_FAILED');
    expect((await shroud(['whoami'], { configDir })).code).toBe(3);
  });
});
