import { logger } from '#lib/log.ts';
import { sweepFullSlice, type FullSweepSlice } from '#lib/storage/sweeper.ts';

/** Twelve minutes of the function's fifteen: the last page's work and the state write fit in the rest. */
const SLICE_MS = 12 * 60 * 1000;

/**
 * The orphan sweeper's full pass on AWS, one slice per hourly run (cdk/stack.ts, a ScheduledJob):
 * every stored block and shard set, for what the regular pass (sweep.ts) cannot see — the
 * per-block layout's shared blocks, and uploads whose journal predates the open list. A slice goes
 * on where the last stopped; a new pass begins a day after the last one began. Not a route.
 */
export const handler = async (): Promise<FullSweepSlice> => {
  const slice = await sweepFullSlice(SLICE_MS);
  if (slice.outcome !== 'waiting') logger.info('full sweep slice', { ...slice });
  return slice;
};
