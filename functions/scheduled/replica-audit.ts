import { auditReplicas, type AuditRound } from '#lib/storage/replica-worker.ts';

/**
 * The replica audit on AWS: an EventBridge rule (cdk/replicas.ts) starts a round every hour —
 * one audit job per replicated pin on the audit queue, which the worker runs in parallel.
 */
export const handler = (): Promise<AuditRound> => auditReplicas();
