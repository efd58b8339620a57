/**
 * What a row of the job table (functions/jobs.ts) is: a function that is not a route, started by a
 * schedule or a queue. Read by the CDK stack and the local runtime.
 */

/**
 * What a job's role may touch beyond the table and its own logs:
 * - `bucket`: read and write the blocks bucket;
 * - `wallet-key`: the wallet key's data keys (GenerateDataKey, Decrypt), and WALLET_KMS_KEY_ID;
 * - `wallet-key-id`: WALLET_KMS_KEY_ID in the environment only (the custody config check), no KMS grant;
 * - `replicas`: the replica pinning's role (its queues and targets); the job exists only when
 *   replicated pinning is configured, and is made by cdk/replicas.ts.
 */
export type JobGrant = 'bucket' | 'wallet-key' | 'wallet-key-id' | 'replicas';

export interface Job {
  /** `scheduled-<name>` is the function's name, `shroud-<stage>-<name>` its role's. */
  name: string;
  /** The CDK construct id (it fixes the logical ids of the deployed resources: never rename). */
  id: string;
  /** functions/scheduled/<file>.ts */
  handler: string;
  description: string;
  /** How it is started: an EventBridge rate in minutes, or the replica queues (the event source mapping). */
  trigger: { everyMinutes: number } | { queues: 'replica' };
  /** Below the period where passes must never overlap. */
  timeoutSeconds: number;
  /** EventBridge's retries of a failed invocation (0 when absent). */
  retryAttempts?: number;
  grants: readonly JobGrant[];
  /**
   * The local runtime's period when it differs from AWS's, with the reason: the local runtime
   * plays a part that another system plays on AWS.
   */
  local?: { everyMs: number; why: string };
}

/** A row started by an EventBridge schedule. */
export type ScheduledJob = Job & { trigger: { everyMinutes: number } };
export const isScheduled = (j: Job): j is ScheduledJob => 'everyMinutes' in j.trigger;
