import { Duration, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Effect, PolicyStatement, Role, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { ApiFunction } from './constructs/api-function.ts';
import { jobNamed } from '../functions/jobs.ts';
import { isScheduled, type Job } from '../lib/job.ts';

/** Where a target's secret is kept on AWS: always Secrets Manager (no secret in a function's environment). */
export interface SecretRef {
  secretArn: string;
}

/** An S3-compatible target (lib/storage/config.ts, REPLICA_TARGETS); `type` may be left out. */
export interface S3TargetSpec {
  type?: 's3';
  name: string;
  /** S3-compatible endpoint of another service (Filebase, Storj, …); absent: an AWS S3 bucket. */
  endpoint?: string;
  bucket: string;
  region?: string;
  /** The service's own keys: a secret holding JSON `{accessKeyId, secretAccessKey}`; absent: the role's (AWS buckets). */
  credentials?: SecretRef;
}

/** A Pinata account (lib/storage/replica-target-pinata.ts). */
export interface PinataTargetSpec {
  type: 'pinata';
  name: string;
  gateway: string;
  apiUrl?: string;
  uploadUrl?: string;
  /** A secret whose string is the Pinata API JWT. */
  jwt: SecretRef;
}

/** One storage target of replicated pinning. */
export type ReplicaTargetSpec = S3TargetSpec | PinataTargetSpec;

const isPinata = (t: ReplicaTargetSpec): t is PinataTargetSpec => t.type === 'pinata';

/** The secret ARNs the targets name: every one (`all`), or those the storage role needs to prove (S3 keys; Pinata's gateway needs none). */
export function targetSecretArns(targets: readonly ReplicaTargetSpec[], which: 'all' | 'proofs'): string[] {
  const arns = targets.flatMap((t) => (isPinata(t) ? (which === 'all' ? [t.jwt.secretArn] : []) : t.credentials ? [t.credentials.secretArn] : []));
  return [...new Set(arns)];
}

export interface ReplicaPinningProps {
  stage: string;
  table: ITable;
  bucket: IBucket;
  /** From the `replicaTargets` context: buckets in other regions, or S3-compatible pinning services. */
  targets: ReplicaTargetSpec[];
}

/**
 * Replicated pinning on AWS (lib/storage/replicas.ts): the worker's two SQS queues (copy and
 * release jobs; the audit's per-pin jobs) with a dead-letter queue (five receives), the worker
 * function they feed (functions/scheduled/replica-worker.ts, one job at a time, failures reported
 * per message; audits at most AUDIT_CONCURRENCY at once), and the hourly audit round
 * (functions/scheduled/replica-audit.ts) on an EventBridge rule. The API's storage functions
 * get `environment` and `grantRequests` (send jobs, read replicas for proofs). Targets' secrets
 * stay in Secrets Manager: `REPLICA_TARGETS` carries their ARNs, and each role may read exactly
 * the secrets its functions use (worker and audit: all; the storage role: the S3 keys its
 * proofs read with).
 */
export class ReplicaPinning extends Construct {
  readonly queue: Queue;
  readonly auditQueue: Queue;
  readonly deadLetters: Queue;
  readonly environment: Record<string, string>;
  private readonly stage: string;
  private readonly props: ReplicaPinningProps;

  constructor(scope: Construct, id: string, props: ReplicaPinningProps) {
    super(scope, id);
    this.stage = props.stage;
    this.props = props;
    this.deadLetters = new Queue(this, 'DeadLetters', {
      queueName: `shroud-${props.stage}-replica-jobs-dlq`,
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const jobQueue = (id: string, name: string) =>
      new Queue(this, id, {
        queueName: `shroud-${props.stage}-${name}`,
        // Above the worker's timeout, so a job in progress is not delivered twice.
        visibilityTimeout: Duration.minutes(16),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: 5 },
      });
    this.queue = jobQueue('Jobs', 'replica-jobs');
    // The audit's per-pin jobs: a queue of their own, so a round never delays a new pin's copy.
    this.auditQueue = jobQueue('Audits', 'replica-audits');
    NagSuppressions.addResourceSuppressions(this.deadLetters, [
      { id: 'AwsSolutions-SQS3', reason: 'This is the dead-letter queue of the replica jobs and audits.' },
    ]);
    this.environment = {
      REPLICA_QUEUE_URL: this.queue.queueUrl,
      REPLICA_AUDIT_QUEUE_URL: this.auditQueue.queueUrl,
      REPLICA_TARGETS: JSON.stringify(props.targets),
    };
  }

  /** What the API's storage role needs: send jobs, and read the targets (proofs). */
  grantRequests(role: IRole): void {
    this.queue.grantSendMessages(role);
    this.grantTargets(role, 'proofs');
  }

  private grantTargets(role: IRole, secrets: 'all' | 'proofs'): void {
    const partition = Stack.of(this).partition;
    const arns = targetSecretArns(this.props.targets, secrets);
    if (arns.length) {
      role.addToPrincipalPolicy(
        new PolicyStatement({
          effect: Effect.ALLOW,
          actions: ['secretsmanager:GetSecretValue'],
          // The ARN as given, and with the 6-character suffix Secrets Manager appends (an ARN given without it).
          resources: arns.flatMap((a) => [a, `${a}-??????`]),
        }),
      );
    }
    // AWS buckets reached with the role's own permissions (not another service's keys).
    const buckets = this.props.targets.filter((t): t is S3TargetSpec => !isPinata(t) && !t.endpoint && !t.credentials).map((t) => t.bucket);
    if (!buckets.length) return;
    role.addToPrincipalPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:ListBucket'],
        resources: buckets.flatMap((b) => [`arn:${partition}:s3:::${b}`, `arn:${partition}:s3:::${b}/replicas/*`]),
      }),
    );
  }

  /** The worker and the audit, with the stack's function environment. */
  addFunctions(environment: Record<string, string>): void {
    const stack = Stack.of(this);
    const role = new Role(this, 'Role', {
      roleName: `shroud-${this.stage}-replicas`.slice(0, 64),
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'The replica worker and audit',
    });
    role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [`arn:${stack.partition}:logs:${stack.region}:${stack.account}:log-group:/aws/lambda/shroud-${this.stage}-*`],
      }),
    );
    this.props.table.grantReadWriteData(role);
    this.props.bucket.grantRead(role);
    for (const q of [this.queue, this.auditQueue]) {
      q.grantConsumeMessages(role);
      q.grantSendMessages(role); // the audit queues its rounds and re-queues lost copy jobs
    }
    this.grantTargets(role, 'all');
    // The rows of functions/jobs.ts that run under this role: the worker (fed by the queues) and the audit (scheduled).
    const [workerRow, auditRow] = [jobNamed('replica-worker'), jobNamed('replica-audit')];
    if (!isScheduled(auditRow)) throw new Error('functions/jobs.ts: replica-audit needs a schedule');
    const fnOf = (row: Job) =>
      new ApiFunction(this, row.id, {
        stage: this.stage,
        entry: row.handler,
        name: `scheduled-${row.name}`,
        profile: 'standard',
        timeoutSeconds: row.timeoutSeconds,
        role,
        environment,
      });
    const worker = fnOf(workerRow);
    worker.addEventSource(new SqsEventSource(this.queue, { batchSize: 1, reportBatchItemFailures: true }));
    // Audits run in parallel, at most AUDIT_CONCURRENCY at once: a round of many pins reads the
    // targets at a bounded rate and leaves the account's concurrency to the API.
    worker.addEventSource(new SqsEventSource(this.auditQueue, { batchSize: 1, reportBatchItemFailures: true, maxConcurrency: AUDIT_CONCURRENCY }));
    const audit = fnOf(auditRow);
    new Rule(this, 'Hourly', {
      description: auditRow.description,
      schedule: Schedule.rate(Duration.minutes(auditRow.trigger.everyMinutes)),
      targets: [new LambdaFunction(audit, { retryAttempts: auditRow.retryAttempts ?? 0 })],
    });
  }
}

/** Audit jobs running at once (each reads a sample of blocks from every replica of one pin). */
const AUDIT_CONCURRENCY = 10;

const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:.+$/;

/**
 * The `replicaTargets` context (a JSON array or a JSON string of one); none: replicated pinning
 * stays off. Checked at synth: on AWS every secret is `{secretArn}` — the `{env}` and
 * `{accessKeyIdEnv, …}` forms are for local runs, and would put a secret in a function's
 * environment. (The full schema is checked again by the functions at cold start.)
 */
export function replicaTargetsOf(scope: Construct): ReplicaTargetSpec[] {
  const raw: unknown = scope.node.tryGetContext('replicaTargets');
  if (raw === undefined) return [];
  const list: unknown = typeof raw === 'string' ? JSON.parse(raw) : raw;
  if (!Array.isArray(list))
    throw new Error(
      'replicaTargets: a JSON array of S3 {name, bucket, region?, endpoint?, credentials?} and Pinata {type: "pinata", name, gateway, jwt} targets',
    );
  const secretOk = (s: unknown) => !!s && typeof s === 'object' && Object.keys(s).length === 1 && SECRET_ARN.test(String((s as SecretRef).secretArn));
  for (const t of list as ReplicaTargetSpec[]) {
    if (isPinata(t)) {
      if (!t.gateway || !secretOk(t.jwt)) throw new Error(`replicaTargets: Pinata target ${t.name}: needs gateway and jwt {secretArn} (a Secrets Manager ARN)`);
    } else {
      if (t.type !== undefined && t.type !== 's3') throw new Error(`replicaTargets: target ${t.name}: type must be "s3" or "pinata"`);
      if (!t.bucket) throw new Error(`replicaTargets: S3 target ${t.name}: needs bucket`);
      if (t.credentials !== undefined && !secretOk(t.credentials))
        throw new Error(`replicaTargets: S3 target ${t.name}: credentials must be {secretArn} (a Secrets Manager ARN) on AWS`);
    }
  }
  return list as ReplicaTargetSpec[];
}
