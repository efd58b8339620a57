/**
 * `shroud login --provider` as RFC 8252 says, with the real binary against the local runtime and
 * its local OpenID provider: the binary listens on 127.0.0.1, prints the sign-in URL
 * (`--no-browser`), this test plays the browser (follows every redirect with per-origin cookies:
 * the API's login, the provider's auto-approve, the callback, the loopback), the binary trades the
 * handoff code for the session and saves it (0600); `whoami` then works. A replayed code is refused.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
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

  it("provider link: a password account links GitHub through the browser and the loopback, then signs in with it; a link code is worthless without the starter's session", {
    timeout: 180_000,
  }, async () => {
    advanceClock(61_000); // a fresh rate-limit window
    const configDir = join(home, 'linker');
    const password = 'linking pass 1';
    await json(['register', 'lina', '-p', password], { configDir });
    await json(['login', 'lina', '-p', password], { configDir });
    const me = await json(['whoami'], { configDir });

    const run = live(['provider', 'link', 'github', 'lina-gh', '--no-browser'], { configDir });
    const providerUrl = new URL((await run.waitFor(URL_LINE))[1]!);
    // The CLI started the link itself (with its session): what it shows is the provider's page.
    expect(providerUrl.origin).not.toBe(new URL(rt.url).origin);
    const browser = await browse(providerUrl.href); // a browser with no Shroud session and no state cookie
    const loopback = browser.visited.at(-1)!;
    expect(loopback.hostname).toBe('127.0.0.1');
    expect([...loopback.searchParams.keys()]).toEqual(['code']);
    const done = await run.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/linked\s+GitHub/);
    // the same session as before; GitHub now signs in to this account
    expect((await json(['whoami'], { configDir })).user.id).toBe(me.user.id);
    const again = live(['login', '--provider', 'github', 'lina-gh', '--no-browser'], { configDir: join(home, 'linker-2') });
    await browse((await again.waitFor(URL_LINE))[1]!);
    expect((await again.done).code).toBe(0);
    expect((await json(['whoami'], { configDir: join(home, 'linker-2') })).user.id).toBe(me.user.id);

    // Mallory starts a link to her own account and lures someone through it: that browser comes back
    // to its own loopback (here: where no one listens), and whoever holds the code cannot link
    // without Mallory's verifier *and* her session.
    const mallory = join(home, 'mallory');
    await json(['register', 'mallory', '-p', password], { configDir: mallory });
    await json(['login', 'mallory', '-p', password], { configDir: mallory });
    const cookie = (dir: string) =>
      Object.entries(JSON.parse(readFileSync(join(dir, 'session.json'), 'utf8')).cookies as Record<string, string>)
        .map(([k, v]) => `${k}=${v}`)
        .join('; ');
    const { challengeOf, newVerifier } = await import('#lib/client/oauth-loopback.ts');
    const lure = async (verifier: string) => {
      const q = new URLSearchParams({
        provider: 'google',
        redirect: 'http://127.0.0.1:9/callback',
        code_challenge: await challengeOf(verifier),
        login_hint: 'victim-g',
      });
      const start = await fetch(`${rt.url}/api/zkauth/link?${q}`, { headers: { cookie: cookie(mallory) }, redirect: 'manual' });
      expect(start.status).toBe(302);
      const victim = await browse(start.headers.get('location')!, 'http://127.0.0.1:9');
      return victim.visited.at(-1)!.searchParams.get('code')!;
    };
    const trade = (code: string, verifier: string, as?: string) =>
      fetch(`${rt.url}/api/zkauth/exchange`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(as ? { cookie: cookie(as) } : {}) },
        body: JSON.stringify({ code, code_verifier: verifier }),
      });
    const v1 = newVerifier();
    const noSession = await trade(await lure(v1), v1); // the right verifier, no session
    expect(noSession.status).toBe(400);
    expect(await noSession.json()).toEqual({
      error: 'INVALID_HANDOFF',
      message: 'a link code is traded by the account that asked to link, signed in (the code is now spent)',
    });
    const v2 = newVerifier();
    const otherAccount = await trade(await lure(v2), v2, configDir); // the right verifier, lina's session
    expect(otherAccount.status).toBe(400);
    expect(otherAccount.headers.getSetCookie()).toEqual([]);
    // nothing was linked: that Google account signs in to an account of its own
    const g = live(['login', '--provider', 'google', 'victim-g', '--no-browser'], { configDir: join(home, 'victim') });
    await browse((await g.waitFor(URL_LINE))[1]!);
    expect((await g.done).code).toBe(0);
    const victimId = (await json(['whoami'], { configDir: join(home, 'victim') })).user.id;
    expect(victimId).not.toBe((await json(['whoami'], { configDir: mallory })).user.id);
    expect(victimId).not.toBe(me.user.id);
    // A browser's cross-site start stays refused even with a challenge.
    const q = new URLSearchParams({ provider: 'google', redirect: 'http://127.0.0.1:9/callback', code_challenge: await challengeOf(v1) });
    const crossSite = await fetch(`${rt.url}/api/zkauth/link?${q}`, {
      headers: { cookie: cookie(mallory), 'sec-fetch-site': 'cross-site' },
      redirect: 'manual',
    });
    expect(crossSite.status).toBe(403);
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
