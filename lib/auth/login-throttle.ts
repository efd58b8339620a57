import { clearFailures as clearCounter, reserveAttempt } from '#lib/data/login-failures.ts';
import { errors } from '#lib/errors.ts';

/**
 * Per-username brute-force brake, on top of the auth group's 20 requests per minute per client
 * (which an attacker spreads over many IPs). Policy: at most five password checks per username
 * in a 15-minute window, whatever the concurrency. Each login reserves its check *before* bcrypt
 * runs, with a conditional increment in DynamoDB (every Lambda instance sees it); when the
 * window's five are used up the login answers 429 RATE_LIMITED with Retry-After (the seconds
 * until the window ends) without checking the password. A successful login clears the window.
 * The counter expires with its window (TTL). Unknown usernames count too, so a lock says nothing
 * about whether the account exists.
 *
 * Check-then-act (read the count, check the password, count the failure) let fifteen parallel
 * wrong passwords all be evaluated; a reservation cannot be overtaken.
 *
 * The price of a username lock is that anyone can lock a known name out for 15 minutes; the
 * window is short and nothing else is affected (sessions stay valid).
 */
export const MAX_ATTEMPTS = 5;
export const WINDOW_SECONDS = 15 * 60;

/** Reserves one password check for `username`, or throws 429 RATE_LIMITED with Retry-After. */
export async function reservePasswordCheck(username: string): Promise<void> {
  const r = await reserveAttempt(username, MAX_ATTEMPTS, WINDOW_SECONDS);
  if (!r.reserved) throw errors.rateLimited(r.retryAfterSeconds);
}

/** After a successful login: the window starts over. */
export const clearFailures = (username: string): Promise<void> => clearCounter(username);
