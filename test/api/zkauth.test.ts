import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import type { ProofRegistry } from '#lib/chains/chain-b/index.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';

// Modules that read configuration load after the runtime has set it (as the handlers do).
const SESSION_COOKIE = 'shroud_session';
const STATE_COOKIE = 'shroud_oauth_state';
let stark: typeof import('#lib/auth/stark-session/index.ts');
let chainB: typeof import('#lib/chains/chain-b/index.ts');

/**
 * Social login end to end against the local OpenID provider (oauth2-mock-server on loopback):
 * the redirect dance is followed by hand (the client does not follow redirects), cookies kept.
 */
let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime({ OAUTH_REDIRECT_ORIGINS: 'https://app.example' });
  stark = await import('#lib/auth/stark-session/index.ts');
  chainB = await import('#lib/chains/chain-b/index.ts');
  expect((await import('#lib/auth/oauth/flow.ts')).STATE_COOKIE).toBe(STATE_COOKIE);
  expect((await import('#lib/http/cookies.ts')).SESSION_COOKIE).toBe(SESSION_COOKIE);
});
afterAll(async () => {
  stark?.useProofRegistry(undefined);
  await rt?.stop();
});
// A fresh rate-limit window per test: every client here is 127.0.0.1.
beforeEach(() => advanceClock(61_000));

const q = (o: Record<string, string>) => new URLSearchParams(o).toString();

/** login (or link) → provider → callback, as a browser would, stopping at the API's final answer. */
async function dance(c: HttpClient, provider: string, hint: string, opts: { redirect?: string; path?: string } = {}) {
  // A browser's navigation from a page of the API's own origin says so (Fetch Metadata).
  const start = await c.get(`${opts.path ?? '/api/zkauth/login'}?${q({ provider, login_hint: hint, redirect: opts.redirect ?? '/app' })}`, {
    headers: { 'sec-fetch-site': 'same-origin' },
  });
  expect(start.status, JSON.stringify(start.json)).toBe(302);
  const authorize = new URL(start.headers.get('location')!);
  const atProvider = await fetch(authorize, { redirect: 'manual' });
  expect(atProvider.status).toBe(302);
  const callback = new URL(atProvider.headers.get('location')!);
  expect(callback.origin).toBe(rt.url);
  const done = await c.get(callback.pathname + callback.search);
  return { authorize, callback, done };
}

async function signIn(provider: string, hint: string) {
  const c = rt.client();
  const { done } = await dance(c, provider, hint);
  expect(done.status).toBe(302);
  expect(done.headers.get('location')).toBe('/app');
  return c;
}

const userIdOf = async (c: HttpClient): Promise<string> => (await c.get('/api/init')).json.session.user.id;

describe('providers', () => {
  it('lists four providers, discord disabled without configuration', async () => {
    const res = await rt.client().get('/api/zkauth/providers');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      success: true,
      data: {
        providers: [
          { id: 'google', name: 'Google', icon: 'google', enabled: true },
          { id: 'github', name: 'GitHub', icon: 'github', enabled: true },
          { id: 'x', name: 'X', icon: 'x', enabled: true },
          { id: 'discord', name: 'Discord', icon: 'discord', enabled: false },
        ],
      },
    });
    expect((await rt.client().get('/api/init')).json.oauthProviders).toEqual(['google', 'github', 'x']);
  });

  it('refuses an unknown provider (400) and a disabled one (PROVIDER_UNAVAILABLE)', async () => {
    const c = rt.client();
    const unknown = await c.get('/api/zkauth/login?provider=myspace');
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toBe('INVALID_INPUT');
    const disabled = await c.get('/api/zkauth/login?provider=discord');
    expect(disabled.status).toBe(502);
    expect(disabled.json.error).toBe('PROVIDER_UNAVAILABLE');
    expect((await c.get('/api/zkauth/login')).json.error).toBe('INVALID_INPUT');
  });
});

describe('login', () => {
  it('sends the browser to the provider with state, PKCE and, for OpenID, a nonce', async () => {
    const c = rt.client();
    const google = await c.get('/api/zkauth/login?provider=google');
    const url = new URL(google.headers.get('location')!);
    expect(url.pathname).toBe('/authorize');
    expect(url.searchParams.get('client_id')).toBe('local-google');
    expect(url.searchParams.get('redirect_uri')).toBe(`${rt.url}/api/zkauth/callback/google`);
    expect(url.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(c.jar.get(STATE_COOKIE)).toBe(url.searchParams.get('state'));
    expect(google.headers.getSetCookie()[0]).toMatch(/Path=\/api\/zkauth\/callback; Max-Age=600; HttpOnly; SameSite=Lax/);
    const github = new URL((await c.get('/api/zkauth/login?provider=github')).headers.get('location')!);
    expect(github.searchParams.get('nonce')).toBeNull();
  });

  it('creates an account at the first login and finds it again by subject', async () => {
    const c = rt.client();
    const { done } = await dance(c, 'github', 'alice');
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).toBe('/app');
    expect(c.jar.get(SESSION_COOKIE)).toBeTruthy();
    expect(c.jar.has(STATE_COOKIE)).toBe(false);
    const status = await c.get('/api/zkauth/status');
    expect(status.json).toEqual({
      success: true,
      data: {
        authenticated: true,
        provider: 'github',
        email: 'alice@example.com',
        name: 'Alice',
        avatar: expect.stringMatching(/^http:\/\/localhost:\d+\/avatars\/alice\.svg$/),
        publicKey: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        sessionBinding: expect.stringMatching(/^[0-9a-f]{64}$/),
        starknet: { verified: false, contract: expect.stringMatching(/^0x[0-9a-f]{64}$/), proofExpiry: null },
      },
    });
    // The avatar is served by the local provider.
    const avatar = await fetch(status.json.data.avatar);
    expect(avatar.headers.get('content-type')).toBe('image/svg+xml');
    // A legacy account: no username, no zk identity yet.
    const init = await c.get('/api/init');
    expect(init.json.session).toMatchObject({ authenticated: true, method: 'oauth:github', user: { username: null, zkId: null } });

    const again = await signIn('github', 'alice');
    expect(await userIdOf(again)).toBe(await userIdOf(c));
    // Same email on another provider is another person until linked: never matched by email.
    const google = await signIn('google', 'alice');
    expect(await userIdOf(google)).not.toBe(await userIdOf(c));
    expect((await google.get('/api/zkauth/status')).json.data).toMatchObject({ provider: 'google', email: 'alice@example.com' });
  });

  it('reads OpenID profiles from the verified ID token and the others from the user endpoint (x)', async () => {
    const x = await signIn('x', 'xavier');
    expect((await x.get('/api/zkauth/status')).json.data).toMatchObject({
      provider: 'x',
      name: 'Xavier',
      avatar: expect.stringContaining('/avatars/xavier.svg'),
    });
  });

  it('replaces the previous session of the browser at login', async () => {
    const c = await signIn('github', 'carol');
    const first = c.jar.get(SESSION_COOKIE)!;
    await dance(c, 'github', 'carol');
    expect(c.jar.get(SESSION_COOKIE)).not.toBe(first);
    const old = rt.client();
    old.jar.set(SESSION_COOKIE, first);
    expect((await old.get('/api/zkauth/status')).json.data).toEqual({ authenticated: false });
  });

  it('answers the status of a signed-out client with authenticated: false only', async () => {
    const res = await rt.client().get('/api/zkauth/status');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ success: true, data: { authenticated: false } });
  });
});

describe('callback refusals', () => {
  it('refuses a replayed state, with a redirect or a JSON 401', async () => {
    const c = rt.client();
    const { callback, done } = await dance(c, 'github', 'dave');
    expect(done.headers.get('location')).toBe('/app');
    const replay = rt.client();
    replay.jar.set(STATE_COOKIE, callback.searchParams.get('state')!);
    const again = await replay.get(callback.pathname + callback.search);
    expect(again.status).toBe(302);
    expect(again.headers.get('location')).toBe('/?error=AUTH_FAILED');
    expect(replay.jar.has(SESSION_COOKIE)).toBe(false);
    replay.jar.set(STATE_COOKIE, callback.searchParams.get('state')!);
    const json = await replay.get(callback.pathname + callback.search, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(401);
    expect(json.json).toEqual({ error: 'AUTH_FAILED', message: expect.any(String) });
  });

  it('refuses a forged state, and a state not bound to this browser (login CSRF)', async () => {
    const forged = rt.client();
    forged.jar.set(STATE_COOKIE, 'forged-state-value-0123456789');
    const res = await forged.get('/api/zkauth/callback/github?code=whatever&state=forged-state-value-0123456789');
    expect(res.headers.get('location')).toBe('/?error=AUTH_FAILED');

    // An attacker's own authorization, completed in the victim's browser, does nothing.
    const attacker = rt.client();
    const start = await attacker.get('/api/zkauth/login?provider=github&login_hint=mallory&redirect=/mine');
    const atProvider = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const callback = new URL(atProvider.headers.get('location')!);
    const victim = rt.client();
    const out = await victim.get(callback.pathname + callback.search);
    expect(out.status).toBe(302);
    expect(out.headers.get('location')).toBe('/?error=AUTH_FAILED');
    expect(victim.jar.has(SESSION_COOKIE)).toBe(false);
  });

  it('a login callback URL handed to another browser is refused there, and that browser keeps its own session (login CSRF)', async () => {
    // The attacker authorizes its own provider account in its browser and stops before the callback.
    const attacker = rt.client();
    const start = await attacker.get('/api/zkauth/login?provider=google&login_hint=mallory.login&redirect=/x');
    expect(attacker.jar.has(STATE_COOKIE)).toBe(true);
    const atProvider = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const callback = new URL(atProvider.headers.get('location')!);
    // The victim's browser (its own cookie jar: its own session and a pending login of its own) is sent there.
    const victim = await signIn('github', 'vera');
    const victimId = await userIdOf(victim);
    await victim.get('/api/zkauth/login?provider=x&login_hint=vera.x');
    expect(victim.jar.has(STATE_COOKIE)).toBe(true);
    const sessionBefore = victim.jar.get(SESSION_COOKIE);
    const out = await victim.get(callback.pathname + callback.search);
    expect(out.status).toBe(302);
    expect(out.headers.get('location')).toBe('/?error=AUTH_FAILED');
    expect(victim.jar.get(SESSION_COOKIE)).toBe(sessionBefore);
    expect(await userIdOf(victim)).toBe(victimId);
    const json = await rt.client().get(callback.pathname + callback.search, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(401);
    expect(json.json.error).toBe('AUTH_FAILED');
    // The state was not spent by the refusals: in the browser that started it, the callback signs in.
    const own = await attacker.get(callback.pathname + callback.search);
    expect(own.headers.get('location')).toBe('/x');
    expect(attacker.jar.has(SESSION_COOKIE)).toBe(true);
    expect(await userIdOf(attacker)).not.toBe(victimId);
  });

  it('sends a provider error back to the redirect target with error=AUTH_FAILED', async () => {
    const c = rt.client();
    const start = await c.get('/api/zkauth/login?provider=github&redirect=%2Fback%3Ftab%3D2');
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const res = await c.get(`/api/zkauth/callback/github?error=access_denied&state=${state}`);
    expect(res.headers.get('location')).toBe('/back?tab=2&error=AUTH_FAILED');
  });

  it('refuses open redirects and accepts relative paths and allowed origins', async () => {
    const c = rt.client();
    for (const bad of ['//evil.example', 'https://evil.example/x', '/\\evil.example', 'javascript:alert(1)', '/a/..//evil.example', 'http://app.example']) {
      const res = await c.get(`/api/zkauth/login?${q({ provider: 'github', redirect: bad })}`);
      expect(res.status, bad).toBe(400);
      expect(res.json.error).toBe('INVALID_INPUT');
    }
    const { done } = await dance(c, 'github', 'erin', { redirect: 'https://app.example/home?x=1' });
    expect(done.headers.get('location')).toBe('https://app.example/home?x=1');
  });
});

describe('loopback login of a native app (RFC 8252): handoff code + verifier', () => {
  const verifierOf = () => randomBytes(32).toString('base64url');
  const challengeOf = (v: string) => createHash('sha256').update(v).digest('base64url');
  const LOOPBACK = 'http://127.0.0.1:53682/callback';

  /** What the app's browser does: login with the challenge → provider → callback → the loopback URL (returned, not followed). */
  async function loopbackDance(hint: string, verifier: string, redirect = LOOPBACK) {
    const browser = rt.client();
    const start = await browser.get(
      `/api/zkauth/login?${q({ provider: 'google', login_hint: hint, redirect, code_challenge: challengeOf(verifier), code_challenge_method: 'S256' })}`,
    );
    expect(start.status, JSON.stringify(start.json)).toBe(302);
    const atProvider = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const callback = new URL(atProvider.headers.get('location')!);
    const done = await browser.get(callback.pathname + callback.search);
    expect(done.status).toBe(302);
    return { browser, landing: new URL(done.headers.get('location')!) };
  }

  it('hands the login to the loopback as a one-time code, which only the verifier turns into a session', async () => {
    const verifier = verifierOf();
    const { browser, landing } = await loopbackDance('lou', verifier);
    expect(`${landing.origin}${landing.pathname}`).toBe(LOOPBACK);
    const code = landing.searchParams.get('code')!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // No session id in any URL, and none in the browser: the session is the app's.
    expect(landing.href).not.toContain(SESSION_COOKIE);
    expect(browser.jar.has(SESSION_COOKIE)).toBe(false);

    const app = rt.client();
    const out = await app.post('/api/zkauth/exchange', { code, code_verifier: verifier });
    expect(out.status, JSON.stringify(out.json)).toBe(200);
    expect(out.json).toEqual({
      success: true,
      data: { provider: 'google', linked: false, user: { id: expect.any(String), username: null, zkId: null, identityPublicKey: null } },
    });
    expect(out.headers.getSetCookie()[0]).toMatch(/^shroud_session=[A-Za-z0-9_-]{43}; .*HttpOnly/);
    const status = await app.get('/api/zkauth/status');
    expect(status.json.data).toMatchObject({ authenticated: true, provider: 'google', email: 'lou@example.com' });
    expect(await userIdOf(app)).toBe(out.json.data.user.id);
    // The same person through the browser flow is the same account.
    expect(await userIdOf(await signIn('google', 'lou'))).toBe(out.json.data.user.id);

    // Replayed: refused, and the replay makes no second session.
    const again = await rt.client().post('/api/zkauth/exchange', { code, code_verifier: verifier });
    expect(again.status).toBe(400);
    expect(again.json).toEqual({ error: 'INVALID_HANDOFF', message: 'unknown, expired or already used handoff code' });
    expect(again.headers.getSetCookie()).toEqual([]);
  });

  it('refuses a code with another verifier (and spends it), an expired code, and a forged one', async () => {
    const verifier = verifierOf();
    const { landing } = await loopbackDance('mia', verifier);
    const code = landing.searchParams.get('code')!;
    const foreign = await rt.client().post('/api/zkauth/exchange', { code, code_verifier: verifierOf() });
    expect(foreign.status).toBe(400);
    expect(foreign.json.error).toBe('INVALID_HANDOFF');
    expect(foreign.headers.getSetCookie()).toEqual([]);
    // Caught and tried with a wrong verifier first, the code is gone for the right one too.
    expect((await rt.client().post('/api/zkauth/exchange', { code, code_verifier: verifier })).json.error).toBe('INVALID_HANDOFF');

    const late = await loopbackDance('mia', verifier);
    advanceClock(61_000);
    const expired = await rt.client().post('/api/zkauth/exchange', { code: late.landing.searchParams.get('code')!, code_verifier: verifier });
    expect(expired.status).toBe(400);
    expect(expired.json.error).toBe('INVALID_HANDOFF');

    const forged = await rt.client().post('/api/zkauth/exchange', { code: randomBytes(32).toString('base64url'), code_verifier: verifier });
    expect(forged.json.error).toBe('INVALID_HANDOFF');
    for (const body of [{ code }, { code, code_verifier: 'short' }, { code: '', code_verifier: verifier }, {}]) {
      const bad = await rt.client().post('/api/zkauth/exchange', body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.json.error).toBe('INVALID_INPUT');
    }
  });

  it('accepts [::1] and any port; refuses loopback targets without a challenge and other targets with one', async () => {
    const verifier = verifierOf();
    const v6 = await loopbackDance('ned', verifier, 'http://[::1]:9/cb?x=1');
    expect(`${v6.landing.origin}${v6.landing.pathname}`).toBe('http://[::1]:9/cb');
    expect(v6.landing.searchParams.get('x')).toBe('1');
    const c = rt.client();
    const challenge = challengeOf(verifier);
    const refused: Record<string, string>[] = [
      { redirect: LOOPBACK }, // a loopback target is only for the handoff flow
      { redirect: 'http://[::1]:8080/cb' },
      { redirect: 'https://app.example/home', code_challenge: challenge }, // a handoff goes to a loopback only
      { redirect: '/app', code_challenge: challenge },
      { redirect: 'http://localhost:8080/cb', code_challenge: challenge },
      { redirect: 'http://2130706433:8080/cb', code_challenge: challenge },
      { redirect: 'http://127.0.0.1:8080@evil.example/cb', code_challenge: challenge },
      { redirect: 'https://evil.example/cb', code_challenge: challenge },
      { redirect: LOOPBACK, code_challenge: 'too-short' },
      { redirect: LOOPBACK, code_challenge: challenge, code_challenge_method: 'plain' },
      { redirect: '/app', code_challenge_method: 'S256' },
    ];
    for (const extra of refused) {
      const res = await c.get(`/api/zkauth/login?${q({ provider: 'github', ...extra })}`);
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(res.json.error).toBe('INVALID_INPUT');
    }
    expect(c.jar.has(STATE_COOKIE)).toBe(false);
  });

  it('sends a refused login back to the loopback with error=AUTH_FAILED and no code', async () => {
    const c = rt.client();
    const start = await c.get(`/api/zkauth/login?${q({ provider: 'google', redirect: LOOPBACK, code_challenge: challengeOf(verifierOf()) })}`);
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const res = await c.get(`/api/zkauth/callback/google?${q({ state, error: 'access_denied' })}`);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${LOOPBACK}?error=AUTH_FAILED`);
  });
});

describe('linking', () => {
  it('links a second provider, refuses a subject of another account, unlinks down to CANNOT_UNLINK', async () => {
    const c = await signIn('github', 'frank');
    const me = await userIdOf(c);
    const { done } = await dance(c, 'google', 'frank.g', { path: '/api/zkauth/link', redirect: '/settings' });
    expect(done.headers.get('location')).toBe('/settings');
    // The session is still frank's github session; google now signs in to the same account.
    expect((await c.get('/api/zkauth/status')).json.data.provider).toBe('github');
    expect(await userIdOf(await signIn('google', 'frank.g'))).toBe(me);

    // george's google account is his own: frank cannot take it over by linking.
    await signIn('google', 'george');
    const taken = await dance(c, 'google', 'george', { path: '/api/zkauth/link' });
    expect(taken.done.headers.get('location')).toBe('/app?error=AUTH_FAILED');
    // Linking needs a session.
    expect((await rt.client().get('/api/zkauth/link?provider=x', { headers: { 'sec-fetch-site': 'same-origin' } })).status).toBe(401);

    const first = await c.post('/api/zkauth/unlink', { provider: 'google' });
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ success: true, data: { unlinked: true, provider: 'google', remainingProviders: ['github'] } });
    const last = await c.post('/api/zkauth/unlink', { provider: 'github' });
    expect(last.status).toBe(409);
    expect(last.json.error).toBe('CANNOT_UNLINK');
    expect((await c.post('/api/zkauth/unlink', { provider: 'x' })).status).toBe(404);
    expect((await c.post('/api/zkauth/unlink', { provider: 'myspace' })).json.error).toBe('INVALID_INPUT');
    // Unlinked, frank.g is a stranger again: a new account.
    expect(await userIdOf(await signIn('google', 'frank.g'))).not.toBe(me);
  });
});

describe('account-link CSRF (issue 11, item 1)', () => {
  const linkUrl = (hint: string) => `/api/zkauth/link?${q({ provider: 'google', login_hint: hint, redirect: '/settings' })}`;

  it('a link flow started by another site is refused before any state exists, and links nothing', async () => {
    const victim = await signIn('github', 'victor');
    const victimId = await userIdOf(victim);
    const attempts: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'cross-site', referer: `${rt.url}/settings` }, // cross-site wins over a Referer
      { 'sec-fetch-site': 'same-site', referer: 'https://evil.example/page' },
      { referer: 'https://evil.example/page' }, // a browser without Fetch Metadata
      { origin: 'null' },
      {}, // nothing shows where it comes from (no-referrer, no Fetch Metadata)
    ];
    for (const headers of attempts) {
      const res = await victim.get(linkUrl('mallory'), { headers });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.json.error).toBe('FORBIDDEN');
      expect(res.json.message).toMatch(/account linking/);
      expect(victim.jar.has(STATE_COOKIE)).toBe(false);
    }
    // mallory's google account was never linked to the victim: it signs in to an account of its own.
    expect(await userIdOf(await signIn('google', 'mallory'))).not.toBe(victimId);
    expect((await victim.get('/api/zkauth/status')).json.data.provider).toBe('github');
  });

  it('a link flow started from this site goes ahead (Fetch Metadata, or a Referer of a trusted origin)', async () => {
    const c = await signIn('github', 'wendy');
    const starts: Record<string, string>[] = [{ 'sec-fetch-site': 'same-origin' }, { 'sec-fetch-site': 'none' }, { referer: `${rt.url}/settings` }];
    for (const headers of starts) {
      const res = await c.get(linkUrl('wendy.g'), { headers });
      expect(res.status, JSON.stringify(headers)).toBe(302);
      expect(c.jar.has(STATE_COOKIE)).toBe(true);
    }
  });
});

describe('STARK proofs', () => {
  it('prove → verify → refresh → logout → not authenticated', async () => {
    const c = await signIn('github', 'hana');
    const status = (await c.get('/api/zkauth/status')).json.data;
    const proved = await c.post('/api/zkauth/prove');
    expect(proved.status, JSON.stringify(proved.json)).toBe(200);
    const p = proved.json.data;
    expect(p).toEqual({
      proof: { stark_proof: expect.stringMatching(/^[0-9a-f]+$/), public_inputs: expect.any(Array), cairo_version: expect.any(String) },
      verified: true,
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      expiresAt: expect.any(String),
    });
    expect(p.proof.public_inputs).toHaveLength(10);
    // The first public inputs are the session's public key.
    expect(
      `0x${p.proof.public_inputs
        .slice(0, 4)
        .map((x: string) => x.slice(2))
        .join('')}`,
    ).toBe(status.publicKey);
    const days = (Date.parse(p.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);

    const verified = await c.post('/api/zkauth/verify');
    expect(verified.json.data).toEqual({ valid: true, proofExpiry: p.expiresAt, starknet: { contract: status.starknet.contract, verified: true } });
    expect((await c.get('/api/zkauth/status')).json.data.starknet).toEqual({ verified: true, contract: status.starknet.contract, proofExpiry: p.expiresAt });

    const refreshed = await c.post('/api/zkauth/refresh');
    expect(refreshed.status).toBe(200);
    const r = refreshed.json.data;
    expect(Object.keys(r).sort()).toEqual(['expiresAt', 'proof', 'txHash']);
    expect(Date.parse(r.expiresAt)).toBeGreaterThan(Date.parse(p.expiresAt));
    expect(r.txHash).not.toBe(p.txHash);
    expect(r.proof.stark_proof).not.toBe(p.proof.stark_proof);
    expect((await c.post('/api/zkauth/verify')).json.data).toMatchObject({ valid: true, proofExpiry: r.expiresAt });

    const sessionHash = createHash('sha256')
      .update(decodeURIComponent(c.jar.get(SESSION_COOKIE)!))
      .digest('hex');
    const proofId = (await stark.currentProofId(sessionHash))!;
    const out = await c.post('/api/zkauth/logout');
    expect(out.json).toEqual({ success: true, data: { loggedOut: true, proofRevoked: true } });
    expect(c.jar.has(SESSION_COOKIE)).toBe(false);
    expect(await stark.proofById(proofId)).toMatchObject({ revoked: true, revokedReason: 'logout' });
    const after = await c.post('/api/zkauth/verify');
    expect(after.status).toBe(401);
    expect(after.json.error).toBe('UNAUTHENTICATED');
    expect((await c.get('/api/zkauth/status')).json.data).toEqual({ authenticated: false });
    expect((await c.post('/api/zkauth/logout')).json.data).toEqual({ loggedOut: true, proofRevoked: false });
  });

  it('revokes the proof on /api/auth/logout too', async () => {
    const c = await signIn('github', 'ines');
    expect((await c.post('/api/zkauth/prove')).status).toBe(200);
    const sessionHash = createHash('sha256')
      .update(decodeURIComponent(c.jar.get(SESSION_COOKIE)!))
      .digest('hex');
    const proofId = (await stark.currentProofId(sessionHash))!;
    expect((await c.post('/api/auth/logout')).status).toBe(200);
    expect(await stark.proofById(proofId)).toMatchObject({ revoked: true, revokedReason: 'logout' });
    expect((await c.post('/api/zkauth/verify')).status).toBe(401);
  });

  it('answers a chain B failure with 502 CHAINB_ERROR', async () => {
    const c = await signIn('github', 'ivan');
    const real = chainB.proofRegistry();
    const failing: ProofRegistry = Object.create(real, {
      storeProof: { value: async () => Promise.reject(new Error('node unreachable')) },
    });
    stark.useProofRegistry(failing);
    try {
      const res = await c.post('/api/zkauth/prove');
      expect(res.status).toBe(502);
      expect(res.json).toEqual({ error: 'CHAINB_ERROR', message: expect.any(String) });
    } finally {
      stark.useProofRegistry(undefined);
    }
    expect((await c.post('/api/zkauth/verify')).json.data.valid).toBe(false);
    expect((await c.post('/api/zkauth/prove')).status).toBe(200);
  });

  it('needs a session: a missing one is a plain 401', async () => {
    const res = await rt.client().post('/api/zkauth/prove');
    expect(res.status).toBe(401);
    expect(res.json.error).toBe('UNAUTHENTICATED');
  });

  // Last: it moves the clock by days.
  it('expires: SESSION_EXPIRED while the proof lives, PROOF_EXPIRED once it has expired', async () => {
    const c = await signIn('x', 'judy');
    expect((await c.post('/api/zkauth/prove')).status).toBe(200);
    advanceClock(25 * 3600_000); // past the session's idle lifetime, the proof still valid
    for (const res of [await c.post('/api/zkauth/verify'), await c.get('/api/zkauth/status'), await c.post('/api/zkauth/prove')]) {
      expect(res.status).toBe(401);
      expect(res.json.error).toBe('SESSION_EXPIRED');
    }
    advanceClock(7 * 86_400_000);
    for (const res of [await c.post('/api/zkauth/verify'), await c.post('/api/zkauth/refresh')]) {
      expect(res.status).toBe(401);
      expect(res.json.error).toBe('PROOF_EXPIRED');
    }
  });
});
