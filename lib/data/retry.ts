/**
 * The optimistic retry of the concurrency kit (docs/concurrency.md): read, decide, write on a
 * condition over what was read; when another writer got there first, read again and try again,
 * after a pause drawn with full jitter (uniform in [0, min(cap, base·2^i)]), so that the losers
 * of one race do not meet again in the next. Only a lost race is retried: an attempt answers
 * `CONFLICT`, or throws a transaction cancelled for a conflict with a concurrent transaction
 * (`isTransactionConflict`). Every other error, and every other answer, ends it at once.
 */
export const CONFLICT: unique symbol = Symbol('conflict');
export type Conflict = typeof CONFLICT;

export interface RetryPolicy {
  /** Tries in all (the first included). */
  attempts: number;
  /** The first pause's ceiling, ms; it doubles with each try, up to `capMs`. */
  baseMs: number;
  capMs: number;
}

/** A handful of tries a few ms apart: races between requests resolve in one or two. */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 8, baseMs: 10, capMs: 200 };

/** The pause before try `i + 1` after try `i` (0-based) lost: full jitter. */
export function backoffMs(i: number, policy: Pick<RetryPolicy, 'baseMs' | 'capMs'>, random: () => number = Math.random): number {
  return random() * Math.min(policy.capMs, policy.baseMs * 2 ** i);
}

/** Every try lost its race. `last` is the error the last one threw, if it threw. */
export class RetriesExhausted extends Error {
  constructor(
    readonly attempts: number,
    readonly last?: unknown,
  ) {
    super(`still conflicting after ${attempts} attempts`);
    this.name = 'RetriesExhausted';
  }
}

/**
 * A TransactWriteItems cancelled only because a concurrent transaction touched the same items
 * (no condition of its own failed): trying again then sees the winner's writes.
 */
export function isTransactionConflict(e: unknown): boolean {
  if (!(e instanceof Error) || e.name !== 'TransactionCanceledException') return false;
  const reasons: unknown = Reflect.get(e, 'CancellationReasons');
  if (!Array.isArray(reasons)) return false;
  const codes = reasons.map((r: unknown) => (typeof r === 'object' && r !== null ? Reflect.get(r, 'Code') : undefined));
  return codes.includes('TransactionConflict') && !codes.includes('ConditionalCheckFailed');
}

export interface RetryOptions extends Partial<RetryPolicy> {
  /** The error to throw when every try lost (default: the last thrown conflict, else RetriesExhausted). */
  exhausted?: (attempts: number, last?: unknown) => Error;
  /** Test hook: the pause itself. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

const pause = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms));

/** Runs `attempt(i)` until it answers something other than `CONFLICT`, at most `attempts` times. */
export async function retryOnConflict<T>(attempt: (i: number) => Promise<T | Conflict>, options: RetryOptions = {}): Promise<T> {
  const policy = { ...DEFAULT_RETRY, ...options };
  let last: unknown;
  for (let i = 0; i < policy.attempts; i++) {
    if (i > 0) await (options.sleep ?? pause)(backoffMs(i - 1, policy, options.random));
    try {
      const out = await attempt(i);
      if (out !== CONFLICT) return out;
      last = undefined;
    } catch (e) {
      if (!isTransactionConflict(e)) throw e;
      last = e;
    }
  }
  if (options.exhausted) throw options.exhausted(policy.attempts, last);
  throw last ?? new RetriesExhausted(policy.attempts);
}
