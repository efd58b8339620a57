import { logger } from '#lib/log.ts';
import { sweepStale, type SweepReport } from '#lib/storage/sweeper.ts';

/**
 * The orphan sweeper's regular pass on AWS: an EventBridge rule (cdk/stack.ts, a ScheduledJob)
 * calls this every 15 minutes; it reads the uploads whose journal is still open an hour on.
 * Not a route: nothing reaches it over HTTP. A failure is thrown so that the invocation counts
 * as failed (and shows in the function's error metric); the next run starts over.
 */
export const handler = async (): Promise<SweepReport> => {
  const report = await sweepStale();
  logger.info('sweep finished', { ...report });
  return report;
};
