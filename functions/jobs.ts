/**
 * THE job table: every function that is not a route, declared once. The CDK stack makes one
 * function, role and EventBridge rule per scheduled row (cdk/stack.ts; the replica rows go to
 * cdk/replicas.ts, which owns their role and queues), and the local runtime runs the same
 * handlers on the same periods (lib/local/runtime.ts). A handler is one file under
 * functions/scheduled/ exporting `handler`. What a row is: lib/job.ts.
 */
import { isScheduled, type Job, type JobGrant, type ScheduledJob } from '#lib/job.ts';

export type { Job };

const job = (
  name: string,
  id: string,
  file: string,
  description: string,
  trigger: Job['trigger'],
  timeoutSeconds: number,
  grants: JobGrant[],
  extra: Partial<Job> = {},
): Job => ({
  name,
  id,
  handler: `functions/scheduled/${file}.ts`,
  description,
  trigger,
  timeoutSeconds,
  grants,
  ...extra,
});

export const jobs: readonly Job[] = [
  // Orphan blocks: the uploads whose journal is still open, every 15 minutes; a full pass (every
  // block listed) in hourly slices, a new pass a day after the last began (lib/storage/sweeper.ts).
  job('sweep', 'Sweeper', 'sweep', 'The orphan-block sweeper', { everyMinutes: 15 }, 300, ['bucket']),
  job('sweep-full', 'SweeperFull', 'sweep-full', 'The orphan-block sweeper, full pass', { everyMinutes: 60 }, 900, ['bucket']),
  // Unpaid withdrawals and unfinished deposits: they sign with the pools' sealed keys.
  job('transfer-retry', 'TransferRetry', 'transfer-retry', 'The shielded-transfer retry job', { everyMinutes: 1 }, 55, ['wallet-key']),
  // The bridge relayer releases withdrawals from the escrow key (sealed like wallet keys).
  job(
    'bridge-relayer',
    'BridgeRelayer',
    'bridge-relayer',
    'The bridge relayer: confirms source transactions, delivers on the destination chain',
    { everyMinutes: 1 },
    55,
    ['wallet-key'],
    {
      local: { everyMs: 1000, why: "the local runtime plays Hyperlane's relayer between its local chain A and chain B, which answer at once" },
    },
  ),
  job('rewards-retry', 'RewardAccrualRetry', 'rewards-retry', 'Records reward accruals whose first attempt failed (the outbox)', { everyMinutes: 1 }, 55, []),
  // The key id only satisfies the custody config check: claims pay from the rewards functions.
  job(
    'close-reward-epochs',
    'RewardEpochs',
    'close-reward-epochs',
    'Closes ended reward epochs into their Merkle roots',
    { everyMinutes: 60 },
    300,
    ['wallet-key-id'],
    { retryAttempts: 2 },
  ),
  // Replicated pinning (cdk/replicas.ts): copy and release jobs, and the audit's per-pin jobs, from
  // the two SQS queues; the audit round hourly.
  job('replica-worker', 'Worker', 'replica-worker', 'The replica worker: copy, release and audit jobs', { queues: 'replica' }, 900, ['replicas']),
  job('replica-audit', 'Audit', 'replica-audit', 'Audits every replicated pin', { everyMinutes: 60 }, 900, ['replicas']),
];

/** The scheduled rows (an EventBridge rule each), with their period. */
export const scheduledJobs = (): ScheduledJob[] => jobs.filter(isScheduled);

/** One row by name (a typo is an error at synth and at start, not a missing function). */
export function jobNamed(name: string): Job {
  const j = jobs.find((x) => x.name === name);
  if (!j) throw new Error(`no job ${name} in functions/jobs.ts`);
  return j;
}
