import { logger } from '#lib/log.ts';
import { auditReplicas, type AuditReport } from '#lib/storage/replicas.ts';

/** The replica audit on AWS: an EventBridge rule (cdk/replicas.ts) runs it every hour. */
export const handler = async (): Promise<AuditReport> => {
  const report = await auditReplicas();
  logger.info('replica audit finished', { ...report });
  return report;
};
