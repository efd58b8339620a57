import { relayOnce, type RelayReport } from '#lib/bridge/relayer.ts';
import { logger } from '#lib/log.ts';

/**
 * The bridge relayer on AWS: an EventBridge rule (cdk/stack.ts) calls this every minute. Not a
 * route. It takes every open bridge record one step further (expiry, source confirmation, the
 * delivery on the destination chain); each step is a conditional transition, so an overlapping
 * pass or the local runtime's timer never acts twice on one state (functions/jobs.ts).
 */
export const handler = async (): Promise<RelayReport> => {
  const report = await relayOnce();
  // A pass with nothing open is not logged: the local runtime runs it every second (functions/jobs.ts).
  if (report.records) logger.info('bridge relay pass finished', { ...report });
  return report;
};
