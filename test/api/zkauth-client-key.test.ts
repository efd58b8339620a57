import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock, clock } from '#lib/clock.ts';
import { createSessionKey, proveSessionKey, clientProofExpiry } from '#lib/client/stark-key.ts';
import { sharedNpmStart } from '../support/npm-start.ts';
import { applySetCookies, startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';

/**
 * The client-held session key end to end against `npm start`'s runtime: the client makes the key
 * (lib/client/stark-key.ts) and proves; /api/zkauth/prove and /refresh verify its proof against
 * public inputs the server derives (the key hash bound to the session, the session's binding id,
 * the expiry for the server's clock, custody = client) and answer as API.md shows.
 */
let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime({ OAUTH_REDIRECT_ORIGINS: 'https://app.example' });
});
afterAll(async () => {
  await rt?.stop();
});
beforeEach(() => advanceClock(61_000));

const q = (o: Record<string, string>) => new URLSearchParams(o).toString();

async function signIn(hint: string): Promise<HttpClient> {
  const c = rt.client();
  const start = await c.get(`/api/zkauth/login?${q({ provider: 'github', login_hint: hint, redirect: '/app' })}`);
  expect(start.status).toBe(302);
  const atProvider = await fetch(new URL(start.headers.get('location')!), { redirect: 'manual' });
  const callback = new URL(atProvider.headers.get('location')!);
  const done = await c.get(callback.pathname + callback.search);
  expect(done.status).toBe(302);
  return c;
}

const CLIENT = '0x0000000000000001';

describe('client-held STARK key', () => {
  it('the client proves, the server verifies, binds the session to the key and answers as API.md shows', async () => {
    const c = await signIn('kira');
    const status = (await c.get('/api/zkauth/status')).json.data;
    expect(status.sessionBinding).toMatch(/^[0-9a-f]{64}$/);
    const key = createSessionKey();
    const now = clock.nowSeconds();
    const mine = proveSessionKey(key, { sessionId: status.sessionBinding, nowSeconds: now });

    const proved = await c.post('/api/zkauth/prove', { stark_proof: mine.stark_proof, keyHash: key.keyHash });
    expect(proved.status, JSON.stringify(proved.json)).toBe(200);
    const p = proved.json.data;
    expect(p).toEqual({
      proof: { stark_proof: mine.stark_proof, public_inputs: mine.public_inputs, cairo_version: mine.cairo_version },
      verified: true,
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      expiresAt: new Date(clientProofExpiry(now) * 1000).toISOString(),
    });
    expect(p.proof.public_inputs[9]).toBe(CLIENT);
    expect(
      `0x${p.proof.public_inputs
        .slice(0, 4)
        .map((x: string) => x.slice(2))
        .join('')}`,
    ).toBe(key.keyHash);
    expect((await c.get('/api/zkauth/status')).json.data.publicKey).toBe(key.keyHash);
    expect((await c.post('/api/zkauth/verify')).json.data).toMatchObject({ valid: true, proofExpiry: p.expiresAt, starknet: { verified: true } });

    // The server no longer holds a key for this session: a prove without a proof is refused.
    const serverSide = await c.post('/api/zkauth/prove');
    expect(serverSide.status).toBe(409);
    // Another key cannot take the session over.
    const other = createSessionKey();
    const theirs = proveSessionKey(other, { sessionId: status.sessionBinding, nowSeconds: now });
    expect((await c.post('/api/zkauth/prove', { stark_proof: theirs.stark_proof, keyHash: other.keyHash })).status).toBe(409);

    // Refresh: a proof for the same expiry is not later; one for the next hour is.
    expect((await c.post('/api/zkauth/refresh', { stark_proof: mine.stark_proof })).status).toBe(409);
    const next = proveSessionKey(key, { sessionId: status.sessionBinding, expiresAt: clientProofExpiry(now + 3600) });
    const refreshed = await c.post('/api/zkauth/refresh', { stark_proof: next.stark_proof });
    expect(refreshed.status, JSON.stringify(refreshed.json)).toBe(200);
    expect(Object.keys(refreshed.json.data).sort()).toEqual(['expiresAt', 'proof', 'txHash']);
    expect(Date.parse(refreshed.json.data.expiresAt)).toBeGreaterThan(Date.parse(p.expiresAt));
    expect((await c.post('/api/zkauth/verify')).json.data).toMatchObject({ valid: true, proofExpiry: refreshed.json.data.expiresAt });
  });

  it('refuses replays and bad proofs: another session, another key hash, a byte flipped, malformed bodies', async () => {
    const alice = await signIn('lena');
    const mallory = await signIn('mo');
    const aliceBinding = (await alice.get('/api/zkauth/status')).json.data.sessionBinding;
    const key = createSessionKey();
    const proof = proveSessionKey(key, { sessionId: aliceBinding, nowSeconds: clock.nowSeconds() });
    // Mallory replays Alice's proof and key hash in her own session: the binding is hers, so it fails.
    const replay = await mallory.post('/api/zkauth/prove', { stark_proof: proof.stark_proof, keyHash: key.keyHash });
    expect(replay.status).toBe(401);
    expect(replay.json.error).toBe('INVALID_PROOF');
    // Alice's proof with another key hash, or with one byte changed, fails.
    expect((await alice.post('/api/zkauth/prove', { stark_proof: proof.stark_proof, keyHash: createSessionKey().keyHash })).json.error).toBe('INVALID_PROOF');
    const flipped = proof.stark_proof.slice(0, 200) + (proof.stark_proof[200] === '0' ? '1' : '0') + proof.stark_proof.slice(201);
    expect((await alice.post('/api/zkauth/prove', { stark_proof: flipped, keyHash: key.keyHash })).json.error).toBe('INVALID_PROOF');
    // The first client proof needs the key hash; bodies are validated at the edge.
    expect((await alice.post('/api/zkauth/prove', { stark_proof: proof.stark_proof })).json.error).toBe('INVALID_INPUT');
    for (const body of [
      { stark_proof: 'xyz' },
      { stark_proof: proof.stark_proof, keyHash: '0x12' },
      { stark_proof: proof.stark_proof, keyHash: key.keyHash, extra: 1 },
    ]) {
      const res = await alice.post('/api/zkauth/prove', body);
      expect(res.status).toBe(400);
      expect(res.json.error).toBe('INVALID_INPUT');
    }
    // Nothing was bound: Alice's own proof still goes through.
    expect((await alice.post('/api/zkauth/prove', { stark_proof: proof.stark_proof, keyHash: key.keyHash })).status).toBe(200);
  });
});

describe('client-held STARK key against npm start', () => {
  it('github login through the local provider, the client proves, the server verifies', async () => {
    // The run's one (test/support/shared-npm-start.ts): this login is a session of its own.
    const api = (await sharedNpmStart()).url;
    const jars = new Map<string, Map<string, string>>();
    // A browser's requests: each origin's cookies kept, redirects followed.
    const go = async (url: string, init: { method?: string; json?: unknown } = {}) => {
      let target = new URL(url);
      let method = init.method ?? 'GET';
      let body = init.json === undefined ? undefined : JSON.stringify(init.json);
      for (let hop = 0; hop < 10; hop++) {
        const jar = jars.get(target.origin) ?? new Map<string, string>();
        jars.set(target.origin, jar);
        const headers: Record<string, string> = { accept: 'application/json' };
        if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
        if (body) headers['content-type'] = 'application/json';
        const res = await fetch(target, { method, headers, body, redirect: 'manual' });
        applySetCookies(jar, res);
        const location = res.headers.get('location');
        if (res.status < 300 || res.status >= 400 || !location) {
          return { status: res.status, json: res.headers.get('content-type')?.includes('json') ? await res.json() : undefined };
        }
        await res.body?.cancel();
        target = new URL(location, target);
        method = 'GET';
        body = undefined;
      }
      throw new Error('too many redirects');
    };
    await go(`${api}/api/zkauth/login?provider=github&redirect=/welcome`);
    const status = (await go(`${api}/api/zkauth/status`)).json.data;
    expect(status.authenticated).toBe(true);
    const key = createSessionKey();
    const mine = proveSessionKey(key, { sessionId: status.sessionBinding });
    const proved = await go(`${api}/api/zkauth/prove`, { method: 'POST', json: { stark_proof: mine.stark_proof, keyHash: key.keyHash } });
    expect(proved.status, JSON.stringify(proved.json)).toBe(200);
    expect(proved.json.data).toMatchObject({ verified: true, proof: { public_inputs: mine.public_inputs } });
    const verified = await go(`${api}/api/zkauth/verify`, { method: 'POST' });
    expect(verified.json.data).toMatchObject({ valid: true, starknet: { verified: true } });
    expect((await go(`${api}/api/zkauth/status`)).json.data.publicKey).toBe(key.keyHash);
  }, 240_000);
});
