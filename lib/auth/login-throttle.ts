import { clock } from '#lib/clock.ts';
import { addFailure, clearFailures as clearCounter, readFailures } from '#lib/data/login-failures.ts';

/**
 * Per-username brute-force brake, on top of the auth group's 20 requests per minute per client
 * (which an attacker spreads over many IPs). Policy: the first failed login for a username opens
 * a 15-minute window; the 5th failure inside it locks that username until the window closes —
 * every login for it then answers 429 RATE_LIMITED with Retry-After, without checking the
 * password. A successful login clears the counter. The counter lives in DynamoDB (every Lambda
 * instance sees it) and expires with its window (TTL). Unknown usernames count too, so a lock
 * says nothing about whether the account exists.
 *
 * The price of a username lock is that anyone can lock a known name out for 15 minutes; the
 * window is short and nothing else is affected (sessions stay valid).
 */
export const MAX_FAILURES = 5;
export const WINDOW_SECONDS = 15 * 60;

/** Seconds the username stays locked, or 0 when a login may be tried. */
export async function lockedFor(username: string): Promise<number> {
  const window = await readFailures(username);
  if (!window || window.count < MAX_FAILURES) return 0;
  return Math.max(1, window.endsAt - clock.nowSeconds());
}

/** Counts one failure atomically; a window past its end starts over. */
export const recordFailure = (username: string): Promise<void> => addFailure(username, WINDOW_SECONDS);

export const clearFailures = (username: string): Promise<void> => clearCounter(username);
