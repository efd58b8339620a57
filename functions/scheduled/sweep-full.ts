import { logger } from '#lib/log.ts';
import { sweepOnce, type SweepReport } from '#lib/storage/sweeper.ts';

/**
 * The orphan sweeper's full pass on AWS, daily (cdk/stack.ts, a ScheduledJob): every stored block
 * and shard set, for what the regular pass (sweep.ts) cannot see — the per-block layout's shared
 * blocks, and uploads whose journal predates the open list. Not a route.
 */
export const handler = async (): Promise<SweepReport> => {
  const report = await sweepOnce();
  logger.info('full sweep finished', { ...report });
  return report;
};
