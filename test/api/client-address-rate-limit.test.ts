import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ORIGIN_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '#lib/http/client-address.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * The per-address limit of requests without a session (the auth group's 20 a minute) behind
 * CloudFront, over the local runtime: the runtime's sourceIp (loopback) plays the edge's address,
 * and the tests send the two headers the distribution adds. The secret is read when the http
 * modules load (cold start), before the runtime is imported, hence the hoisted environment.
 */
const SECRET = vi.hoisted(() => {
  const secret = 'origin-secret-of-the-rate-limit-test-0123456789';
  process.env.CLOUDFRONT_ORIGIN_SECRET = secret;
  return secret;
});

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime();
});
afterAll(async () => {
  const { resetClock } = await import('#lib/clock.ts');
  resetClock();
  await rt?.stop();
});

const viaCloudFront = (viewer: string, secret = SECRET) => ({ headers: { [ORIGIN_SECRET_HEADER]: secret, [VIEWER_ADDRESS_HEADER]: viewer } });

describe('per-address rate limits behind CloudFront', () => {
  it('gives two viewers behind one edge their own limits; a forged address without the secret counts as the edge', async () => {
    const { advanceClock, clock } = await import('#lib/clock.ts');
    advanceClock(60_000 - (clock.nowMs() % 60_000) + 100);
    const statuses = async (n: number, opts: (i: number) => { headers: Record<string, string> }) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await rt.client().get('/api/auth/session', opts(i))).status);
      return out;
    };

    // Forged: a fresh address per request with a wrong or no secret. All count against the
    // connection's own address (the "edge"), so the 21st is refused whatever address it claims.
    const forged = await statuses(21, (i) =>
      i % 2 ? viaCloudFront(`198.51.100.${i}`, 'guessed-secret') : { headers: { [VIEWER_ADDRESS_HEADER]: `198.51.100.${i}` } },
    );
    expect(forged).toEqual([...Array(20).fill(200), 429]);
    // And the edge's own address is spent: a request without any header is refused too.
    expect((await rt.client().get('/api/auth/session')).status).toBe(429);

    // Through the distribution (right secret): each viewer has its own 20, the edge's exhaustion notwithstanding.
    expect(await statuses(21, () => viaCloudFront('203.0.113.1'))).toEqual([...Array(20).fill(200), 429]);
    const other = await rt.client().get('/api/auth/session', viaCloudFront('203.0.113.2'));
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-remaining')).toBe('19');
    // A malformed viewer address falls back to the edge's (spent) limit.
    expect((await rt.client().get('/api/auth/session', viaCloudFront('203.0.113.2, 10.0.0.1'))).status).toBe(429);
    // IPv6 viewers count by /64: another address of the same /64 shares the limit, the next /64 does not.
    expect(await statuses(20, (i) => viaCloudFront(`2001:db8:1:2::${(i + 1).toString(16)}`))).toEqual(Array(20).fill(200));
    expect((await rt.client().get('/api/auth/session', viaCloudFront('2001:db8:1:2:ffff::1'))).status).toBe(429);
    expect((await rt.client().get('/api/auth/session', viaCloudFront('2001:db8:1:3::1'))).status).toBe(200);
  });
});
