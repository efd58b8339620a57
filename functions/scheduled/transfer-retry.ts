import { logger } from '#lib/log.ts';
import { retryTransfersOnce, type RetryReport } from '#lib/transfer/retry.ts';

/**
 * The transfer retry job on AWS: an EventBridge rule (cdk/stack.ts) calls this every minute. Not a
 * route. It pays withdrawals whose payout failed and finishes deposits a failure left half done.
 */
export const handler = async (): Promise<RetryReport> => {
  const report = await retryTransfersOnce();
  logger.info('transfer retry pass finished', { ...report });
  return report;
};
