import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import { config } from '#lib/config.ts';
import { logger } from '#lib/log.ts';
import { storageConfig } from './config.ts';

/**
 * The replica worker's two queues. Copy and release jobs go to one; the audit's per-pin jobs
 * (and a round's continuation) to the other, so that an audit round of many pins never makes a
 * new pin's copy wait behind it, and the audit's reads of the targets can be bounded on their own
 * (cdk/replicas.ts: the audit queue's event source has a maximum concurrency).
 *
 * On AWS, SQS queues with a dead-letter queue: a job that fails (the worker died, a target timed
 * out) comes back after the visibility timeout, and after five receives goes to the DLQ. Locally
 * (no REPLICA_QUEUE_URL) the same semantics in process: one consumer per queue, redelivery with
 * backoff, five receives, then a dead-letter list. Either way the worker code is
 * `handleReplicaJob` (replicas.ts). The local queue lives in the process: the jobs a stopped
 * runtime held are queued again from the pins' states when it starts (`requeueUnfinishedJobs`),
 * and the audit re-enqueues a pin whose job went quiet, so nothing depends on the queue being
 * durable.
 */
const cid = z.string().max(200);
export const replicaJobSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('copy'), cid }),
  z.object({ kind: z.literal('release'), cid }),
  /** Audit one pin for the round that began at `round` (ms): skipped if audited since. */
  z.object({ kind: z.literal('audit'), cid, round: z.number().int() }),
  /** The rest of a round's listing, from `after` (the index's cursor), when the first slice ran out of time. */
  z.object({ kind: z.literal('audit-round'), round: z.number().int(), after: z.string().max(4000) }),
]);
export type ReplicaJob = z.infer<typeof replicaJobSchema>;

export const MAX_RECEIVES = 5;
/** SendMessageBatch takes at most ten messages. */
const SQS_BATCH = 10;

const isAuditJob = (job: ReplicaJob) => job.kind === 'audit' || job.kind === 'audit-round';
const sqs = storageConfig.REPLICA_QUEUE_URL ? new SQSClient({ region: config.AWS_REGION }) : undefined;
// Both are set or neither (checked at cold start, config.ts).
const queueUrlOf = (job: ReplicaJob) => (isAuditJob(job) ? storageConfig.REPLICA_AUDIT_QUEUE_URL! : storageConfig.REPLICA_QUEUE_URL!);

interface Delivery {
  job: ReplicaJob;
  /** The job as JSON: the same job twice in the queue is one. */
  key: string;
  receives: number;
}

/** One in-process queue with SQS's delivery semantics (see above). */
class LocalQueue {
  private ready: Delivery[] = [];
  private waiting = new Set<string>();
  /** Deliveries waiting for their backoff to end. */
  private delayed = 0;
  private busy = false;
  private timers = new Set<NodeJS.Timeout>();
  handler: ((job: ReplicaJob) => Promise<void>) | undefined;
  readonly deadLetters: { job: ReplicaJob; error: string }[] = [];

  push(job: ReplicaJob): void {
    // The same job twice in the queue is one: the worker reads the pin's state anyway.
    const key = JSON.stringify(job);
    if (!this.waiting.has(key)) {
      this.waiting.add(key);
      this.ready.push({ job, key, receives: 0 });
    }
    this.pump();
  }

  get idle(): boolean {
    return !this.busy && !this.ready.length && !this.delayed;
  }

  pump(): void {
    if (this.busy || !this.handler) return;
    const next = this.ready.shift();
    if (!next) return;
    this.waiting.delete(next.key);
    this.busy = true;
    next.receives++;
    this.handler(next.job)
      .catch((e: unknown) => {
        // Stopped meanwhile: the job goes with the queue (see stop).
        if (!this.handler) return;
        if (next.receives >= MAX_RECEIVES) {
          logger.error('replica job dead-lettered', { ...next.job, error: e as Error });
          this.deadLetters.push({ job: next.job, error: (e as Error).message });
          return;
        }
        logger.warn('replica job failed; redelivering', { ...next.job, receives: next.receives, error: e as Error });
        this.delayed++;
        const t = setTimeout(
          () => {
            this.timers.delete(t);
            this.delayed--;
            // Unless the same job was queued again meanwhile: that one goes instead.
            if (!this.waiting.has(next.key)) {
              this.waiting.add(next.key);
              this.ready.push(next);
            }
            this.pump();
          },
          200 * 2 ** next.receives,
        );
        t.unref();
        this.timers.add(t);
      })
      .finally(() => {
        this.busy = false;
        this.pump();
      });
  }

  /**
   * Stops the consumer, and the jobs not done go with it, as they go with the process that holds
   * them: the next start queues them again from the pins' states (`requeueUnfinishedJobs`), so a
   * stop in a test behaves as a runtime's end does.
   */
  async stop(): Promise<void> {
    this.handler = undefined;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.delayed = 0;
    this.ready = [];
    this.waiting.clear();
    while (this.busy) await new Promise((r) => setTimeout(r, 20));
  }
}

const local = { jobs: new LocalQueue(), audits: new LocalQueue() };
const localQueueOf = (job: ReplicaJob) => (isAuditJob(job) ? local.audits : local.jobs);

export const enqueueReplicaJob = (job: ReplicaJob): Promise<void> => enqueueReplicaJobs([job]);

/** Queues jobs, ten to a SendMessageBatch on AWS; throws if any could not be queued (after one retry of those). */
export async function enqueueReplicaJobs(jobs: readonly ReplicaJob[]): Promise<void> {
  if (!sqs) {
    for (const job of jobs) localQueueOf(job).push(job);
    return;
  }
  for (const url of new Set(jobs.map(queueUrlOf))) {
    const list = jobs.filter((j) => queueUrlOf(j) === url);
    for (let i = 0; i < list.length; i += SQS_BATCH) await sendBatch(url, list.slice(i, i + SQS_BATCH));
  }
}

async function sendBatch(url: string, jobs: ReplicaJob[]): Promise<void> {
  let entries = jobs.map((job, i) => ({ Id: String(i), MessageBody: JSON.stringify(job) }));
  for (let attempt = 0; attempt < 2 && entries.length; attempt++) {
    const out = await sqs!.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
    const failed = new Set((out.Failed ?? []).map((f) => f.Id));
    entries = entries.filter((e) => failed.has(e.Id));
  }
  if (entries.length) throw new Error(`replica queue: ${entries.length} job(s) not queued`);
}

/** Starts the in-process consumers (lib/local/runtime.ts); returns their stop. */
export function startLocalReplicaQueue(handler: (job: ReplicaJob) => Promise<void>): () => Promise<void> {
  for (const q of [local.jobs, local.audits]) {
    q.handler = handler;
    q.pump();
  }
  return async () => {
    await Promise.all([local.jobs.stop(), local.audits.stop()]);
  };
}

/** Resolves once both local queues are empty and their consumers idle (tests, scripts). */
export async function drainReplicaQueue(timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!local.jobs.idle || !local.audits.idle) {
    if (!local.jobs.handler) throw new Error('no local replica consumer is running');
    if (Date.now() > until) throw new Error('replica queue did not drain');
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const localDeadLetters = (): readonly { job: ReplicaJob; error: string }[] => [...local.jobs.deadLetters, ...local.audits.deadLetters];
