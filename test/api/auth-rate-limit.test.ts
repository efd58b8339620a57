import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/** The auth group's real limit (API.md: 20 per minute), per client. */
let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime();
});
afterAll(async () => {
  await rt?.stop();
});

describe('auth rate limit', () => {
  it('the 21st auth request within a minute is 429 with Retry-After', async () => {
    const { advanceClock, clock, resetClock } = await import('#lib/clock.ts');
    // Start at the beginning of a fixed 60 s window, so that all 21 requests fall into one.
    advanceClock(60_000 - (clock.nowMs() % 60_000) + 100);
    try {
      const client = rt.client();
      const statuses: number[] = [];
      for (let i = 0; i < 21; i++) statuses.push((await client.get('/api/auth/session')).status);
      expect(statuses.slice(0, 20)).toEqual(Array(20).fill(200));
      expect(statuses[20]).toBe(429);
      const res = await client.post('/api/auth/login', { username: 'someone', password: 'whatever1' });
      expect(res.status).toBe(429);
      expect(res.json.error).toBe('RATE_LIMITED');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(res.headers.get('ratelimit-limit')).toBe('20');
      expect(res.headers.get('ratelimit-remaining')).toBe('0');
    } finally {
      resetClock();
    }
  });
});
