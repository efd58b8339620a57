import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unlockIdentity, signIdentityProof, identityProofMessage, fromBase64 } from '#lib/client/identity.ts';
import { advanceClock, resetClock } from '#lib/clock.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { newIdentity, PASSWORD, registerUser, signedInUser, uniqueName } from './identity-helpers.ts';

let rt: TestRuntime;

beforeAll(async () => {
  // Many requests per test: the rate limit is raised tenfold here (auth-rate-limit.test.ts keeps the real one).
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '10' });
});
afterAll(async () => {
  resetClock();
  await rt?.stop();
});

describe('POST /api/auth/register', () => {
  it('creates an account: 201 {message, user: {id, username, zkId, identityPublicKey}}', async () => {
    const { res, username, identity } = await registerUser(rt.client());
    expect(res.status).toBe(201);
    expect(Object.keys(res.json).sort()).toEqual(['message', 'user']);
    expect(typeof res.json.message).toBe('string');
    expect(Object.keys(res.json.user).sort()).toEqual(['id', 'identityPublicKey', 'username', 'zkId']);
    expect(res.json.user.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(res.json.user.username).toBe(username);
    expect(res.json.user.zkId).toMatch(/^did:zk:[a-z0-9]{16}$/);
    expect(res.json.user.identityPublicKey).toBe(identity.encrypted.identityPublicKey);
    expect(res.json).not.toHaveProperty('success');
  });

  it('accepts both published kdfIterations magnitudes (100000 and 200000), and zkIds differ', async () => {
    const a = await registerUser(rt.client(), uniqueName(), PASSWORD, 100_000);
    const b = await registerUser(rt.client(), uniqueName(), PASSWORD, 200_000);
    expect([a.res.status, b.res.status]).toEqual([201, 201]);
    expect(a.res.json.user.zkId).not.toBe(b.res.json.user.zkId);
  });

  it('validates all seven fields, naming the field', async () => {
    const { encrypted } = await newIdentity();
    const good = { username: uniqueName(), password: PASSWORD, ...encrypted };
    const cases: [Record<string, unknown>, string][] = [
      [{ username: 'ab' }, 'username'],
      [{ username: 'x'.repeat(33) }, 'username'],
      [{ username: 'bad name!' }, 'username'],
      [{ username: undefined }, 'username'],
      [{ password: 'short7!' }, 'password'],
      [{ password: 12345678 }, 'password'],
      [{ identityPublicKey: 'not base64!' }, 'identityPublicKey'],
      [{ identityPublicKey: Buffer.alloc(31, 1).toString('base64') }, 'identityPublicKey'],
      [{ identityPrivateKeyEncrypted: '%%%' }, 'identityPrivateKeyEncrypted'],
      [{ identityPrivateKeyIv: 'abc' }, 'identityPrivateKeyIv'],
      [{ kdfSalt: '' }, 'kdfSalt'],
      [{ kdfIterations: 99_999 }, 'kdfIterations'],
      [{ kdfIterations: 100_000.5 }, 'kdfIterations'],
      [{ kdfIterations: '100000' }, 'kdfIterations'],
    ];
    const client = rt.client();
    for (const [patch, field] of cases) {
      const res = await client.post('/api/auth/register', { ...good, ...patch });
      expect(res.status, JSON.stringify(patch)).toBe(400);
      expect(res.json.error).toBe('INVALID_INPUT');
      expect(res.json.message).toContain(field);
    }
    expect((await client.post('/api/auth/register', good)).status).toBe(201);
  });

  it('a taken username, in any case, is 400 "username already exists"', async () => {
    const name = uniqueName('Dup');
    expect((await registerUser(rt.client(), name)).res.status).toBe(201);
    for (const variant of [name, name.toLowerCase(), name.toUpperCase()]) {
      const { res } = await registerUser(rt.client(), variant);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: 'USERNAME_EXISTS', message: 'username already exists' });
    }
  });

  it('parallel registrations of one name give exactly one account', async () => {
    const name = uniqueName('race');
    const { encrypted } = await newIdentity();
    const variants = [name, name.toUpperCase(), name, name.toLowerCase(), name, name.toUpperCase()];
    const results = await Promise.all(variants.map((username) => rt.client().post('/api/auth/register', { username, password: PASSWORD, ...encrypted })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 400, 400, 400, 400, 400]);
    for (const r of results.filter((x) => x.status === 400)) expect(r.json.error).toBe('USERNAME_EXISTS');
    const winner = results.find((r) => r.status === 201)!;
    const login = await rt.client().post('/api/auth/login', { username: name, password: PASSWORD });
    expect(login.json.user.id).toBe(winner.json.user.id);
  });
});

describe('login, session, me, identity, logout', () => {
  it('runs the whole path, with an HTTP-only session cookie', async () => {
    const client = rt.client();
    const { username, user, identity } = await signedInUser(client);

    const again = await client.post('/api/auth/login', { username: username.toUpperCase(), password: PASSWORD });
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ message: expect.any(String), user: { id: user.id, username, zkId: user.zkId } });
    const cookie = again.headers.getSetCookie().find((c) => c.startsWith('shroud_session='))!;
    expect(cookie).toBeDefined();
    const attrs = cookie.split(';').map((s) => s.trim());
    expect(attrs).toContain('HttpOnly');
    expect(attrs).toContain('SameSite=Lax');
    expect(attrs).toContain('Path=/');
    expect(attrs).toContain(`Max-Age=${7 * 24 * 3600}`);
    expect(attrs).not.toContain('Secure'); // plain-http localhost only (COOKIE_SECURE=false); on AWS it is set
    expect(attrs[0]!.split('=')[1]).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 random bits

    const session = await client.get('/api/auth/session');
    expect(session.status).toBe(200);
    expect(session.json).toEqual({
      authenticated: true,
      user: { id: user.id, username, zkId: user.zkId, identityPublicKey: user.identityPublicKey },
    });

    const me = await client.get('/api/auth/me');
    expect(me.json).toEqual({ user: { id: user.id, zkId: user.zkId, username } });

    const blob = await client.get('/api/auth/identity');
    expect(blob.status).toBe(200);
    expect(blob.json).toEqual({ zkId: user.zkId, ...identity.encrypted });
    // A new device: the blob and the password give back the signing key.
    const privateKey = await unlockIdentity(blob.json, PASSWORD);
    const fields = { zkId: user.zkId, nonce: 'n'.repeat(16), timestamp: 1 };
    const sig = fromBase64(await signIdentityProof(fields, privateKey));
    const pub = await crypto.subtle.importKey('raw', fromBase64(user.identityPublicKey), { name: 'Ed25519' }, false, ['verify']);
    expect(await crypto.subtle.verify({ name: 'Ed25519' }, pub, sig, identityProofMessage(fields) as Uint8Array<ArrayBuffer>)).toBe(true);
    await expect(unlockIdentity(blob.json, 'wrong password')).rejects.toThrow(/wrong password/);

    const init = await client.get('/api/init');
    expect(init.json.session).toMatchObject({ authenticated: true, user: { id: user.id, username, zkId: user.zkId } });

    const out = await client.post('/api/auth/logout');
    expect(out.status).toBe(200);
    expect(out.json).toEqual({ message: expect.any(String) });
    const cleared = out.headers.getSetCookie().find((c) => c.startsWith('shroud_session='))!;
    expect(cleared).toMatch(/Max-Age=0/);
    expect((await client.get('/api/auth/me')).status).toBe(401);
    expect((await client.get('/api/auth/session')).json).toEqual({ authenticated: false });
    expect((await client.get('/api/init')).json.session).toEqual({ authenticated: false });
    // Harmless when already signed out.
    expect((await client.post('/api/auth/logout')).status).toBe(200);
  });

  it('logout ends the session in DynamoDB: the old cookie value stays dead', async () => {
    const client = rt.client();
    await signedInUser(client);
    const stolen = client.jar.get('shroud_session')!;
    await client.post('/api/auth/logout');
    const replay = rt.client();
    replay.jar.set('shroud_session', stolen);
    expect((await replay.get('/api/auth/me')).status).toBe(401);
  });

  it('every login mints a new session id; a planted or previous cookie never becomes authenticated', async () => {
    const { username } = await registerUser(rt.client());
    const client = rt.client();
    client.jar.set('shroud_session', 'A'.repeat(43)); // fixation attempt
    await client.post('/api/auth/login', { username, password: PASSWORD });
    const first = client.jar.get('shroud_session')!;
    expect(first).not.toBe('A'.repeat(43));
    const planted = rt.client();
    planted.jar.set('shroud_session', 'A'.repeat(43));
    expect((await planted.get('/api/auth/session')).json).toEqual({ authenticated: false });

    await client.post('/api/auth/login', { username, password: PASSWORD });
    const second = client.jar.get('shroud_session')!;
    expect(second).not.toBe(first);
    const old = rt.client();
    old.jar.set('shroud_session', first);
    expect((await old.get('/api/auth/me')).status).toBe(401); // replaced on re-login
    expect((await client.get('/api/auth/me')).status).toBe(200);
  });

  it('without a session: /me and /identity are 401, /session is unauthenticated', async () => {
    const client = rt.client();
    const me = await client.get('/api/auth/me');
    expect(me.status).toBe(401);
    expect(me.json).toEqual({ error: 'UNAUTHENTICATED', message: 'not authenticated' });
    expect((await client.get('/api/auth/identity')).status).toBe(401);
    expect((await client.post('/api/auth/upgrade-legacy', {})).status).toBe(401);
    expect((await client.get('/api/auth/session')).json).toEqual({ authenticated: false });
  });

  it('an expired session answers 401 like a missing one (idle lifetime 24 h)', async () => {
    const client = rt.client();
    await signedInUser(client);
    expect((await client.get('/api/auth/me')).status).toBe(200);
    advanceClock(24 * 3600 * 1000 + 1000);
    try {
      const me = await client.get('/api/auth/me');
      expect(me.status).toBe(401);
      expect(me.json.error).toBe('SESSION_EXPIRED');
      expect((await client.get('/api/auth/session')).json).toEqual({ authenticated: false });
    } finally {
      resetClock();
    }
  });
});

describe('login failures', () => {
  it('wrong username and wrong password give the same 401', async () => {
    const { username } = await registerUser(rt.client());
    const wrongPassword = await rt.client().post('/api/auth/login', { username, password: 'not the password' });
    const wrongUser = await rt.client().post('/api/auth/login', { username: uniqueName('nobody'), password: PASSWORD });
    const malformed = await rt.client().post('/api/auth/login', { username: 'x y', password: PASSWORD });
    for (const r of [wrongPassword, wrongUser, malformed]) {
      expect(r.status).toBe(401);
      expect(r.json).toEqual({ error: 'INVALID_CREDENTIALS', message: 'invalid credentials' });
      expect(r.headers.getSetCookie().some((c) => c.startsWith('shroud_session='))).toBe(false);
    }
  });

  it('answers in about the same time for an unknown user and a wrong password (dummy hash)', async () => {
    const { username } = await registerUser(rt.client());
    const time = async (body: object) => {
      const t = performance.now();
      await rt.client().post('/api/auth/login', body);
      return performance.now() - t;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 4; i++) {
      known.push(await time({ username, password: `wrong-${i}-password` }));
      unknown.push(await time({ username: uniqueName('ghost'), password: `wrong-${i}-password` }));
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    // Both pay one bcrypt comparison (~50–150 ms); without the dummy hash "unknown" would take a
    // few ms, a ratio of 20 or more. The bound is generous because the machine may be loaded.
    const ratio = median(unknown) / median(known);
    expect(ratio).toBeGreaterThan(0.4);
    expect(ratio).toBeLessThan(2.5);
  });

  it('5 failures for one username lock it for 15 minutes (429 + Retry-After), then it works again', async () => {
    const { username } = await registerUser(rt.client());
    for (let i = 0; i < 5; i++) {
      const r = await rt.client().post('/api/auth/login', { username, password: `bad-password-${i}` });
      expect(r.status).toBe(401);
    }
    const locked = await rt.client().post('/api/auth/login', { username: username.toUpperCase(), password: PASSWORD });
    expect(locked.status).toBe(429);
    expect(locked.json.error).toBe('RATE_LIMITED');
    const retry = Number(locked.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(800);
    expect(retry).toBeLessThanOrEqual(900);
    advanceClock(15 * 60 * 1000 + 1000);
    try {
      expect((await rt.client().post('/api/auth/login', { username, password: PASSWORD })).status).toBe(200);
    } finally {
      resetClock();
    }
  });

  it('a success clears the failure count', async () => {
    const { username } = await registerUser(rt.client());
    for (let i = 0; i < 4; i++) await rt.client().post('/api/auth/login', { username, password: 'bad-password' });
    expect((await rt.client().post('/api/auth/login', { username, password: PASSWORD })).status).toBe(200);
    // Without the reset these two would make 6 failures, and the next login would be locked.
    for (let i = 0; i < 2; i++) await rt.client().post('/api/auth/login', { username, password: 'bad-password' });
    expect((await rt.client().post('/api/auth/login', { username, password: PASSWORD })).status).toBe(200);
  });
});

describe('POST /api/auth/upgrade-legacy', () => {
  it('gives a legacy account an identity once; a second upgrade is 409', async () => {
    const { createLegacyUser, getUser, hasIdentity } = await import('#lib/data/users.ts');
    const { createSession } = await import('#lib/data/sessions.ts');
    const legacy = await createLegacyUser({ name: 'Ada', email: 'ada@example.org' });
    expect(hasIdentity(legacy)).toBe(false);
    const { id } = await createSession(legacy.id, 'oauth:github');
    const client = rt.client();
    client.jar.set('shroud_session', id);

    expect((await client.get('/api/auth/session')).json).toEqual({
      authenticated: true,
      user: { id: legacy.id, username: null, zkId: null, identityPublicKey: null },
    });
    expect((await client.get('/api/auth/identity')).status).toBe(404);

    const { encrypted } = await newIdentity();
    const up = await client.post('/api/auth/upgrade-legacy', encrypted);
    expect(up.status).toBe(200);
    expect(up.json).toEqual({
      message: expect.any(String),
      user: { id: legacy.id, username: null, zkId: expect.stringMatching(/^did:zk:[a-z0-9]{16}$/), identityPublicKey: encrypted.identityPublicKey },
    });
    expect(hasIdentity((await getUser(legacy.id))!)).toBe(true);
    expect((await client.get('/api/auth/identity')).json).toEqual({ zkId: up.json.user.zkId, ...encrypted });

    const twice = await client.post('/api/auth/upgrade-legacy', (await newIdentity()).encrypted);
    expect(twice.status).toBe(409);
    expect(twice.json.error).toBe('CONFLICT');
  });

  it('an account registered with an identity is 409; bad fields are 400', async () => {
    const client = rt.client();
    await signedInUser(client);
    const { encrypted } = await newIdentity();
    expect((await client.post('/api/auth/upgrade-legacy', encrypted)).status).toBe(409);
    const bad = await client.post('/api/auth/upgrade-legacy', { ...encrypted, kdfIterations: 1000 });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain('kdfIterations');
  });
});
