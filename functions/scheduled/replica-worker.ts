import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '#lib/log.ts';
import { replicaJobSchema } from '#lib/storage/replica-queue.ts';
import { handleReplicaJob } from '#lib/storage/replica-worker.ts';

/**
 * The replica worker on AWS: SQS (cdk/replicas.ts) delivers copy and release jobs from one
 * queue, and the audit's per-pin jobs from the other. A job that
 * fails is reported back (partial batch response) and comes again after the visibility timeout;
 * after five receives it goes to the dead-letter queue. A copy resumes from its journal.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      await handleReplicaJob(replicaJobSchema.parse(JSON.parse(record.body)));
    } catch (e) {
      logger.error('replica job failed', { messageId: record.messageId, error: e as Error });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
};
