import { Aspects, NestedStack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { replicaTargetsOf } from '../../cdk/replicas.ts';
import { ShroudStack } from '../../cdk/stack.ts';
import { testApp } from '../support/cdk.ts';

/** Replicated pinning in the synthesized stack when `replicaTargets` is configured (cdk/replicas.ts). */
const S3_KEYS = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:shroud/storj-keys';
const PINATA_JWT = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:shroud/pinata-jwt-AbCdEf';
const targets = [
  { name: 'eu', bucket: 'shroud-replica-eu', region: 'eu-west-1' },
  { name: 'us', bucket: 'shroud-replica-us', region: 'us-west-2' },
  { name: 'filebase', endpoint: 'https://s3.filebase.com', bucket: 'shroud-replica', region: 'us-east-1' },
  { type: 's3', name: 'storj', endpoint: 'https://gateway.storjshare.io', bucket: 'shroud-replica', region: 'us-east-1', credentials: { secretArn: S3_KEYS } },
  { name: 'keyed', bucket: 'shroud-replica-keyed', region: 'eu-central-1', credentials: { secretArn: S3_KEYS } }, // another account's bucket, its own keys
  { type: 'pinata', name: 'pinata', gateway: 'https://example.mypinata.cloud', jwt: { secretArn: PINATA_JWT } },
];
let root: ShroudStack;
let template: Template;
let storageTemplate: Template;

type PolicyStatementJson = { Action: string | string[]; Resource: unknown };
/** Every statement of the IAM policies attached to the role named `roleName` in `t`. */
function statementsOf(t: Template, roleName: string): PolicyStatementJson[] {
  const [roleId] = Object.keys(t.findResources('AWS::IAM::Role', { Properties: { RoleName: roleName } }));
  expect(roleId, roleName).toBeDefined();
  return Object.values(t.findResources('AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p.Properties.Roles).includes(`"${roleId}"`))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as PolicyStatementJson[]);
}
const secretResources = (stmts: PolicyStatementJson[]) =>
  stmts.filter((s) => [s.Action].flat().includes('secretsmanager:GetSecretValue')).flatMap((s) => [s.Resource].flat());

beforeAll(() => {
  process.env.CDK_VALIDATION = 'false';
  const app = testApp({ context: { 'aws:cdk:bundling-stacks': [], stage: 'ci', replicaTargets: JSON.stringify(targets) } });
  root = new ShroudStack(app, 'Shroud-ci', { stage: 'ci' });
  Aspects.of(app).add(new AwsSolutionsChecks());
  template = Template.fromStack(root);
  const storage = root.node.children.find((c): c is NestedStack => c instanceof NestedStack && (c as unknown as { group?: string }).group === 'storage')!;
  storageTemplate = Template.fromStack(storage);
});

describe('replicated pinning in the CDK stack', () => {
  it('has the job queue with a dead-letter queue after five receives, feeding the worker one job at a time', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'shroud-ci-replica-jobs',
      RedrivePolicy: { maxReceiveCount: 5, deadLetterTargetArn: Match.anyValue() },
    });
    template.hasResourceProperties('AWS::SQS::Queue', { QueueName: 'shroud-ci-replica-jobs-dlq' });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { BatchSize: 1, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    template.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'shroud-ci-scheduled-replica-worker' });
  });

  it('has the audit queue, with the same dead-letter queue, feeding the worker at a bounded concurrency', () => {
    const queues = template.findResources('AWS::SQS::Queue');
    const idOf = (name: string) => Object.entries(queues).find(([, q]) => q.Properties.QueueName === name)![0];
    const [dlq, audits, jobs] = ['shroud-ci-replica-jobs-dlq', 'shroud-ci-replica-audits', 'shroud-ci-replica-jobs'].map(idOf);
    for (const q of [audits, jobs])
      expect(queues[q!]!.Properties.RedrivePolicy).toEqual({ maxReceiveCount: 5, deadLetterTargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] } });
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')).map((m) => m.Properties);
    const from = (q: string) => mappings.find((m) => JSON.stringify(m.EventSourceArn).includes(`"${q}"`));
    expect(from(audits!)).toMatchObject({ BatchSize: 1, FunctionResponseTypes: ['ReportBatchItemFailures'], ScalingConfig: { MaximumConcurrency: 10 } });
    expect(from(jobs!)?.ScalingConfig).toBeUndefined(); // copies are not held back by audits
    // The worker and audit role sends to and takes from both queues; the API's storage role only sends copies.
    const grants = (t: Template, role: string, q: string) =>
      statementsOf(t, role)
        .filter((st) => JSON.stringify(st.Resource).includes(`"${q}"`))
        .flatMap((st) => [st.Action].flat());
    for (const q of [audits!, jobs!])
      expect(grants(template, 'shroud-ci-replicas', q)).toEqual(expect.arrayContaining(['sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:DeleteMessage']));
    const storageSends = JSON.stringify(statementsOf(storageTemplate, 'shroud-ci-storage').filter((st) => [st.Action].flat().includes('sqs:SendMessage')));
    expect(storageSends).toContain('ReplicasJobs');
    expect(storageSends).not.toContain('ReplicasAudits');
  });

  it('runs the audit hourly from EventBridge', () => {
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 hour)' });
    template.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'shroud-ci-scheduled-replica-audit' });
  });

  it('gives every function the targets and the queue', () => {
    const fns = template.findResources('AWS::Lambda::Function', { Properties: { FunctionName: 'shroud-ci-scheduled-replica-worker' } });
    const env = (Object.values(fns)[0] as { Properties: { Environment: { Variables: Record<string, unknown> } } }).Properties.Environment.Variables;
    expect(JSON.parse(env.REPLICA_TARGETS as string)).toEqual(targets);
    expect(env.REPLICA_QUEUE_URL).toBeDefined();
    expect(env.REPLICA_AUDIT_QUEUE_URL).toBeDefined(); // both or neither: checked at cold start
  });

  it('lets the worker and audit read every target secret, the storage role only the S3 keys its proofs use; no secret in the environment', () => {
    const worker = secretResources(statementsOf(template, 'shroud-ci-replicas'));
    expect(worker.sort()).toEqual([PINATA_JWT, `${PINATA_JWT}-??????`, S3_KEYS, `${S3_KEYS}-??????`].sort());
    const storage = secretResources(statementsOf(storageTemplate, 'shroud-ci-storage'));
    expect(storage.sort()).toEqual([S3_KEYS, `${S3_KEYS}-??????`].sort());
    // The role's bucket grants cover the AWS buckets reached with the role, not the keyed services'.
    const s3Resources = JSON.stringify(statementsOf(template, 'shroud-ci-replicas').filter((s) => [s.Action].flat().includes('s3:PutObject')));
    expect(s3Resources).toContain('shroud-replica-eu');
    expect(s3Resources).not.toContain('shroud-replica-keyed');
  });

  it('refuses, at synth, a target whose secret is not a Secrets Manager ARN', () => {
    const withTargets = (t: unknown[]) => replicaTargetsOf(testApp({ context: { replicaTargets: JSON.stringify(t) } }));
    expect(withTargets(targets)).toHaveLength(6);
    expect(() => withTargets([{ type: 'pinata', name: 'p', gateway: 'https://g.example', jwt: { env: 'PINATA_JWT' } }])).toThrow(/jwt \{secretArn\}/);
    expect(() => withTargets([{ name: 's', bucket: 'b', credentials: { accessKeyIdEnv: 'A', secretAccessKeyEnv: 'B' } }])).toThrow(
      /credentials must be \{secretArn\}/,
    );
    expect(() => withTargets([{ type: 'ipfs', name: 'x', bucket: 'b' }])).toThrow(/type must be/);
  });

  it('passes cdk-nag', () => {
    expect(Annotations.fromStack(root).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'))).toEqual([]);
  });
});
