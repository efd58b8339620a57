import { logger } from '#lib/log.ts';
import { closeEndedEpochs } from '#lib/rewards/rewards.ts';

/**
 * The epoch close on AWS: an EventBridge rule (functions/jobs.ts, cdk/stack.ts) calls this every hour. Not a route:
 * nothing reaches it over HTTP. The local runtime runs it on the same period (functions/jobs.ts); claims
 * also close their ended epoch themselves.
 */
export const handler = async (): Promise<{ closed: number[] }> => {
  const closed = await closeEndedEpochs();
  logger.info('reward epochs closed', { closed });
  return { closed };
};
