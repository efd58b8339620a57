import { App, Aspects } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { ShroudStack } from '../../cdk/stack.ts';

/** Replicated pinning in the synthesized stack when `replicaTargets` is configured (cdk/replicas.ts). */
const targets = [
  { name: 'eu', bucket: 'shroud-replica-eu', region: 'eu-west-1' },
  { name: 'us', bucket: 'shroud-replica-us', region: 'us-west-2' },
  { name: 'filebase', endpoint: 'https://s3.filebase.com', bucket: 'shroud-replica', region: 'us-east-1' },
];
let root: ShroudStack;
let template: Template;

beforeAll(() => {
  process.env.CDK_VALIDATION = 'false';
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], stage: 'ci', replicaTargets: JSON.stringify(targets) } });
  root = new ShroudStack(app, 'Shroud-ci', { stage: 'ci' });
  Aspects.of(app).add(new AwsSolutionsChecks());
  template = Template.fromStack(root);
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

  it('runs the audit hourly from EventBridge', () => {
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 hour)' });
    template.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'shroud-ci-scheduled-replica-audit' });
  });

  it('gives every function the targets and the queue', () => {
    const fns = template.findResources('AWS::Lambda::Function', { Properties: { FunctionName: 'shroud-ci-scheduled-replica-worker' } });
    const env = (Object.values(fns)[0] as { Properties: { Environment: { Variables: Record<string, unknown> } } }).Properties.Environment.Variables;
    expect(JSON.parse(env.REPLICA_TARGETS as string)).toEqual(targets);
    expect(env.REPLICA_QUEUE_URL).toBeDefined();
  });

  it('passes cdk-nag', () => {
    expect(Annotations.fromStack(root).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'))).toEqual([]);
  });
});
