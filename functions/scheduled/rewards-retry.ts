import { logger } from '#lib/log.ts';
import { retryAccrualsOnce, type AccrualRetryReport } from '#lib/rewards/accrue.ts';

/**
 * The reward-accrual retry job on AWS: an EventBridge rule (cdk/stack.ts, a ScheduledJob) calls
 * this every minute. Not a route. It records accruals whose first attempt failed after a confirmed
 * swap or deposit (the outbox in lib/rewards/accrue.ts), each exactly once.
 */
export const handler = async (): Promise<AccrualRetryReport> => {
  const report = await retryAccrualsOnce();
  logger.info('reward accrual retry pass finished', { ...report });
  return report;
};
