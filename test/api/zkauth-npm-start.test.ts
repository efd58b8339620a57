import { describe, expect, it } from 'vitest';
import { sharedNpmStart } from '../support/npm-start.ts';
import { applySetCookies } from '../support/runtime.ts';

/**
 * Issue 6's "done when", as a browser would do it against the real `npm start`: follow every
 * redirect, keep each origin's cookies, no internet (the local OpenID provider signs in `demo`).
 */
class Browser {
  private jars = new Map<string, Map<string, string>>();

  private jar(origin: string) {
    let j = this.jars.get(origin);
    if (!j) this.jars.set(origin, (j = new Map()));
    return j;
  }

  /** One request, then every redirect it leads to; returns the last response and where it was. */
  async go(url: string, init: { method?: string; accept?: string } = {}) {
    let target = new URL(url);
    let method = init.method ?? 'GET';
    const visited: string[] = [];
    for (let hop = 0; hop < 10; hop++) {
      visited.push(target.href);
      const jar = this.jar(target.origin);
      const headers: Record<string, string> = { accept: init.accept ?? 'text/html,application/json;q=0.9' };
      if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
      const res = await fetch(target, { method, headers, redirect: 'manual' });
      applySetCookies(jar, res);
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) {
        const json = res.headers.get('content-type')?.includes('json') ? await res.json() : undefined;
        return { status: res.status, json, url: target.href, visited };
      }
      await res.body?.cancel();
      target = new URL(location, target);
      method = 'GET';
    }
    throw new Error(`too many redirects: ${visited.join(' → ')}`);
  }
}

describe('social login against npm start', () => {
  it('github login through the local provider, status, prove → verify → refresh → logout → verify refused', async () => {
    // The run's one (test/support/shared-npm-start.ts); the local provider signs in a session of this browser's own.
    const api = (await sharedNpmStart()).url;
    const b = new Browser();

    const providers = await b.go(`${api}/api/zkauth/providers`);
    expect(providers.json.data.providers.filter((p: { enabled: boolean }) => p.enabled).map((p: { id: string }) => p.id)).toEqual(['google', 'github', 'x']);

    // The redirect target is the app's page; here the API has none, so the chain ends on its 404.
    const login = await b.go(`${api}/api/zkauth/login?provider=github&redirect=/welcome`);
    expect(login.visited[1]).toMatch(/^http:\/\/localhost:\d+\/authorize\?/); // the provider
    expect(login.visited[2]).toMatch(new RegExp(`^${api}/api/zkauth/callback/github\\?code=`));
    expect(login.url).toBe(`${api}/welcome`);

    const status = await b.go(`${api}/api/zkauth/status`);
    expect(status.json.data).toMatchObject({
      authenticated: true,
      provider: 'github',
      name: 'Demo',
      email: 'demo@example.com',
      publicKey: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });

    const proved = await b.go(`${api}/api/zkauth/prove`, { method: 'POST' });
    expect(proved.status).toBe(200);
    expect(proved.json.data).toMatchObject({ verified: true, txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });

    const verified = await b.go(`${api}/api/zkauth/verify`, { method: 'POST' });
    expect(verified.json.data).toMatchObject({ valid: true, starknet: { verified: true, contract: expect.stringMatching(/^0x[0-9a-f]{64}$/) } });

    const refreshed = await b.go(`${api}/api/zkauth/refresh`, { method: 'POST' });
    expect(Date.parse(refreshed.json.data.expiresAt)).toBeGreaterThan(Date.parse(proved.json.data.expiresAt));
    expect(refreshed.json.data.txHash).not.toBe(proved.json.data.txHash);
    expect((await b.go(`${api}/api/zkauth/verify`, { method: 'POST' })).json.data.valid).toBe(true);

    const out = await b.go(`${api}/api/zkauth/logout`, { method: 'POST' });
    expect(out.json.data).toEqual({ loggedOut: true, proofRevoked: true });
    const after = await b.go(`${api}/api/zkauth/verify`, { method: 'POST' });
    expect(after.status).toBe(401);
    expect(after.json.error).toBe('UNAUTHENTICATED');
    expect((await b.go(`${api}/api/zkauth/status`)).json.data).toEqual({ authenticated: false });
  });
});
