import { logger } from '#lib/log.ts';
import { closeEndedEpochs } from '#lib/rewards/rewards.ts';

/**
 * The epoch close on AWS: an EventBridge rule (cdk/stack.ts, a ScheduledJob) calls this every hour. Not a route:
 * nothing reaches it over HTTP. Locally, claims close their ended epoch themselves.
 */
export const handler = async (): Promise<{ closed: number[] }> => {
  const closed = await closeEndedEpochs();
  logger.info('reward epochs closed', { closed });
  return { closed };
};
