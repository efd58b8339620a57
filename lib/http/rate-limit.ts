import { clock } from '#lib/clock.ts';
import { config } from '#lib/config.ts';
import { rateCounterKey, rateCounterTtl, takeTokens } from '#lib/data/rate-counters.ts';

export const WINDOW_SECONDS = 60;

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
  exceeded: boolean;
}

/**
 * This instance's lease on one (group, client, window) counter: tokens already counted in
 * DynamoDB but not yet spent here. Spending one is a memory operation; only an empty lease goes
 * back to DynamoDB.
 */
interface Lease {
  windowStart: number;
  /** Tokens leased and not yet spent. */
  tokens: number;
  /** Tokens this instance has spent in the window: the demand the next lease is sized by. */
  spent: number;
  /** The window's count across all instances at the last lease (it includes `tokens`). */
  count: number;
  /** DynamoDB said nothing remains: the count never falls within a window, so stop asking. */
  exhausted: boolean;
  /** The lease request in flight, shared by every hit that finds the lease empty meanwhile. */
  refill?: Promise<void>;
}

/**
 * Lease size. A lease grows with this instance's demand in the window (it asks for as many
 * tokens as it has already spent: 1, 1, 2, 4, 8, ...), so the DynamoDB writes per window grow
 * with the log of the traffic, not with it; and it is capped at an eighth of the limit, so
 * the tokens that other instances' unspent leases strand (the under-admission across instances)
 * are at most one eighth of the limit per busy instance, and never more than that instance
 * has itself admitted. A lease never exceeds what remains (takeTokens), so one instance admits
 * exactly the limit.
 */
const leaseSize = (lease: Lease, limit: number): number => Math.max(1, Math.min(lease.spent, Math.floor(limit / 8)));

/**
 * Fixed 60 s window per (group, client), budgeted in DynamoDB so that every Lambda instance draws
 * from one count. An instance leases a few tokens at a time (see `leaseSize`) and serves hits
 * from its lease in memory; the window's count never passes the limit, so the limit holds
 * exactly on one instance and can only under-admit across several. One RateLimiter is one
 * instance's lease state (tests make several to play several instances).
 */
export class RateLimiter {
  private readonly leases = new Map<string, Lease>();
  private sweptWindow = 0;

  async hit(group: string, client: string, perMinute: number): Promise<RateLimitState> {
    const limit = Math.max(1, Math.floor(perMinute * config.RATE_LIMIT_MULTIPLIER));
    const now = clock.nowSeconds();
    const windowStart = now - (now % WINDOW_SECONDS);
    const reset = windowStart + WINDOW_SECONDS - now;
    const lease = this.leaseOf(group, client, windowStart);
    for (;;) {
      if (lease.tokens > 0) {
        lease.tokens--;
        lease.spent++;
        // Spent in the window = the count at the last lease minus what this lease still holds.
        return { limit, remaining: Math.max(0, limit - (lease.count - lease.tokens)), reset, exceeded: false };
      }
      if (lease.exhausted) return { limit, remaining: 0, reset, exceeded: true };
      lease.refill ??= refill(group, client, lease, limit).finally(() => {
        lease.refill = undefined;
      });
      await lease.refill;
    }
  }

  private leaseOf(group: string, client: string, windowStart: number): Lease {
    if (windowStart !== this.sweptWindow) {
      // A new window: leases of other windows are worthless (their tokens expire with them).
      for (const [k, l] of this.leases) if (l.windowStart !== windowStart) this.leases.delete(k);
      this.sweptWindow = windowStart;
    }
    const id = `${group}#${client}`;
    let lease = this.leases.get(id);
    if (!lease || lease.windowStart !== windowStart) {
      lease = { windowStart, tokens: 0, spent: 0, count: 0, exhausted: false };
      this.leases.set(id, lease);
    }
    return lease;
  }
}

async function refill(group: string, client: string, lease: Lease, limit: number): Promise<void> {
  const taken = await takeTokens(
    rateCounterKey(group, client, lease.windowStart),
    leaseSize(lease, limit),
    limit,
    rateCounterTtl(lease.windowStart, WINDOW_SECONDS),
  );
  lease.tokens += taken.granted;
  lease.count = taken.count;
  if (taken.granted === 0) lease.exhausted = true;
}

/** This function instance's lease state: module scope lives as long as the warm instance. */
const instanceLimiter = new RateLimiter();

/** Count one request of `client` against its group's per-minute limit. */
export const hit = (group: string, client: string, perMinute: number): Promise<RateLimitState> => instanceLimiter.hit(group, client, perMinute);

export const rateLimitHeaders = (s: RateLimitState): Record<string, string> => ({
  'ratelimit-limit': String(s.limit),
  'ratelimit-remaining': String(s.remaining),
  'ratelimit-reset': String(s.reset),
});
