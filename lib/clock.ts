/**
 * The one source of "now" for everything that expires (sessions, share links, proofs, rate-limit
 * windows). Tests move it with `advanceClock`; production never does.
 */
let offsetMs = 0;

export const clock = {
  nowMs: (): number => Date.now() + offsetMs,
  nowSeconds: (): number => Math.floor(clock.nowMs() / 1000),
  now: (): Date => new Date(clock.nowMs()),
};

/** Test hook: advance the clock by `ms` (cumulative). */
export function advanceClock(ms: number): void {
  offsetMs += ms;
}

/** Test hook: back to the real time. */
export function resetClock(): void {
  offsetMs = 0;
}
