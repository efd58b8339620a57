import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import { config } from '#lib/config.ts';
import { logger } from '#lib/log.ts';
import { storageConfig } from './config.ts';

/**
 * The replica worker's queue. On AWS an SQS queue with a dead-letter queue (cdk/replicas.ts):
 * a job that fails (the worker died, a target timed out) comes back after the visibility timeout,
 * and after five receives goes to the DLQ. Locally (no REPLICA_QUEUE_URL) the same semantics in
 * process: one consumer, redelivery with backoff, five receives, then a dead-letter list. Either
 * way the worker code is `handleReplicaJob` (replicas.ts), and the audit re-enqueues a pin whose
 * job was lost (a local process that died), so nothing depends on the queue being durable.
 */
export const replicaJobSchema = z.object({ kind: z.enum(['copy', 'release']), cid: z.string().max(200) });
export type ReplicaJob = z.infer<typeof replicaJobSchema>;

export const MAX_RECEIVES = 5;

const sqs = storageConfig.REPLICA_QUEUE_URL ? new SQSClient({ region: config.AWS_REGION }) : undefined;

interface Delivery {
  job: ReplicaJob;
  receives: number;
}

const local = {
  ready: [] as Delivery[],
  /** Deliveries waiting for their backoff to end. */
  delayed: 0,
  busy: false,
  handler: undefined as ((job: ReplicaJob) => Promise<void>) | undefined,
  deadLetters: [] as { job: ReplicaJob; error: string }[],
  timers: new Set<NodeJS.Timeout>(),
};

export async function enqueueReplicaJob(job: ReplicaJob): Promise<void> {
  if (sqs) {
    await sqs.send(new SendMessageCommand({ QueueUrl: storageConfig.REPLICA_QUEUE_URL, MessageBody: JSON.stringify(job) }));
    return;
  }
  // The same CID twice in the queue is one job: the worker reads the pin's state anyway.
  if (!local.ready.some((d) => d.job.kind === job.kind && d.job.cid === job.cid)) local.ready.push({ job, receives: 0 });
  pump();
}

function pump(): void {
  if (local.busy || !local.handler) return;
  const next = local.ready.shift();
  if (!next) return;
  local.busy = true;
  next.receives++;
  local
    .handler(next.job)
    .catch((e: unknown) => {
      if (next.receives >= MAX_RECEIVES) {
        logger.error('replica job dead-lettered', { ...next.job, error: e as Error });
        local.deadLetters.push({ job: next.job, error: (e as Error).message });
        return;
      }
      logger.warn('replica job failed; redelivering', { ...next.job, receives: next.receives, error: e as Error });
      local.delayed++;
      const t = setTimeout(() => {
        local.timers.delete(t);
        local.delayed--;
        local.ready.push(next);
        pump();
      }, 200 * 2 ** next.receives);
      t.unref();
      local.timers.add(t);
    })
    .finally(() => {
      local.busy = false;
      pump();
    });
}

/** Starts the in-process consumer (lib/local/runtime.ts); returns its stop. */
export function startLocalReplicaQueue(handler: (job: ReplicaJob) => Promise<void>): () => Promise<void> {
  local.handler = handler;
  pump();
  return async () => {
    local.handler = undefined;
    for (const t of local.timers) clearTimeout(t);
    local.timers.clear();
    local.delayed = 0;
    while (local.busy) await new Promise((r) => setTimeout(r, 20));
  };
}

/** Resolves once the local queue is empty and its consumer idle (tests, scripts). */
export async function drainReplicaQueue(timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (local.busy || local.ready.length || local.delayed) {
    if (!local.handler) throw new Error('no local replica consumer is running');
    if (Date.now() > until) throw new Error('replica queue did not drain');
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const localDeadLetters = (): readonly { job: ReplicaJob; error: string }[] => local.deadLetters;
