import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, resetClock } from '#lib/clock.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { PASSWORD, registerUser } from './identity-helpers.ts';

/** Issue 11, item 3: at most five password checks per username per window, whatever the concurrency. */
let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '10' });
});
afterAll(async () => {
  resetClock();
  await rt?.stop();
});

describe('login throttling under concurrency', () => {
  it('fifteen parallel wrong passwords: five evaluated (401), never more; the other ten 429 with Retry-After', async () => {
    const { username } = await registerUser(rt.client());
    const answers = await Promise.all(Array.from({ length: 15 }, (_, i) => rt.client().post('/api/auth/login', { username, password: `wrong-password-${i}` })));
    const statuses = answers.map((a) => a.status);
    const evaluated = statuses.filter((s) => s === 401).length;
    expect(evaluated, statuses.join(',')).toBe(5); // exactly the window's five: none lost to the race either
    expect(statuses.filter((s) => s === 429)).toHaveLength(15 - evaluated);
    for (const a of answers.filter((x) => x.status === 429)) {
      expect(a.json.error).toBe('RATE_LIMITED');
      const retry = Number(a.headers.get('retry-after'));
      expect(retry).toBeGreaterThan(800);
      expect(retry).toBeLessThanOrEqual(900);
    }
    const { readFailures } = await import('#lib/data/login-failures.ts');
    expect((await readFailures(username))?.count).toBe(5);

    // The right password inside the window is not even checked; after it, it works.
    expect((await rt.client().post('/api/auth/login', { username, password: PASSWORD })).status).toBe(429);
    advanceClock(15 * 60 * 1000 + 1000);
    expect((await rt.client().post('/api/auth/login', { username, password: PASSWORD })).status).toBe(200);
  });

  it('an unknown username is throttled the same way (a lock says nothing about existence)', async () => {
    const username = `nobody-${Date.now().toString(36)}`;
    const statuses = (await Promise.all(Array.from({ length: 15 }, () => rt.client().post('/api/auth/login', { username, password: 'wrong-password' })))).map(
      (a) => a.status,
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
  });
});
