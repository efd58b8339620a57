import { logger } from '#lib/log.ts';
import { sweepOnce, type SweepReport } from '#lib/storage/sweeper.ts';

/**
 * The orphan sweeper on AWS: an EventBridge rule (cdk/stack.ts, a ScheduledJob) calls this every 15 minutes.
 * Not a route: nothing reaches it over HTTP. A failure is thrown so that the invocation counts
 * as failed (and shows in the function's error metric); the next run starts over.
 */
export const handler = async (): Promise<SweepReport> => {
  const report = await sweepOnce();
  logger.info('sweep finished', { ...report });
  return report;
};
