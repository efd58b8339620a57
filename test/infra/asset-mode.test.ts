import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateMs, readWiring } from '../../cdk/asset-wiring.ts';
import { placeholderResolver, resolveValue, type Scope } from '../../cdk/cloud-assembly.ts';
import { MOTO_CREDENTIALS } from '../../cdk/local-aws.ts';
import { startSqsPoller } from '../../cdk/sqs-poller.ts';
import { startMoto, type Moto } from '../../lib/local/moto.ts';

/** The asset mode's reading of the templates (cdk/asset-wiring.ts) and its SQS poller against Moto (cdk/sqs-poller.ts). */
describe('the asset mode wiring', () => {
  it('reads rate expressions, and refuses what it does not run', () => {
    expect(rateMs('rate(1 minute)')).toBe(60_000);
    expect(rateMs('rate(15 minutes)')).toBe(900_000);
    expect(rateMs('rate(1 hour)')).toBe(3_600_000);
    expect(rateMs('rate(2 days)')).toBe(172_800_000);
    expect(() => rateMs('cron(0 12 * * ? *)')).toThrow(/only rate/);
  });

  it('finds the function of each route, stream URL, schedule and queue mapping of a template', () => {
    const fn = (name: string, handler = 'index.handler') => ({ Type: 'AWS::Lambda::Function', Properties: { FunctionName: name, Handler: handler } });
    const scope: Scope = {
      name: 'Shroud-t',
      file: 't.json',
      parameters: new Map(),
      template: {
        Resources: {
          Fn: fn('shroud-t-get-x'),
          FnStream: fn('shroud-t-get-x-stream', 'index.streamHandler'),
          Job: fn('shroud-t-scheduled-job'),
          Worker: fn('shroud-t-scheduled-worker'),
          Queue: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'jobs' } },
          Integration: { Type: 'AWS::ApiGatewayV2::Integration', Properties: { IntegrationUri: { 'Fn::GetAtt': ['Fn', 'Arn'] } } },
          Route: {
            Type: 'AWS::ApiGatewayV2::Route',
            Properties: { RouteKey: 'GET /api/x', Target: { 'Fn::Join': ['', ['integrations/', { Ref: 'Integration' }]] } },
          },
          Url: { Type: 'AWS::Lambda::Url', Properties: { InvokeMode: 'RESPONSE_STREAM', TargetFunctionArn: { 'Fn::GetAtt': ['FnStream', 'Arn'] } } },
          Rule: {
            Type: 'AWS::Events::Rule',
            Properties: { ScheduleExpression: 'rate(5 minutes)', State: 'ENABLED', Targets: [{ Arn: { 'Fn::GetAtt': ['Job', 'Arn'] } }] },
          },
          Off: {
            Type: 'AWS::Events::Rule',
            Properties: { ScheduleExpression: 'rate(1 minute)', State: 'DISABLED', Targets: [{ Arn: { 'Fn::GetAtt': ['Job', 'Arn'] } }] },
          },
          Mapping: {
            Type: 'AWS::Lambda::EventSourceMapping',
            Properties: {
              FunctionName: { Ref: 'Worker' },
              EventSourceArn: { 'Fn::GetAtt': ['Queue', 'Arn'] },
              BatchSize: 1,
              FunctionResponseTypes: ['ReportBatchItemFailures'],
              ScalingConfig: { MaximumConcurrency: 3 },
            },
          },
        },
      },
    };
    const w = readWiring([scope], placeholderResolver);
    expect([...w.routes]).toEqual([['GET /api/x', 'shroud-t-get-x']]);
    expect([...w.streams]).toEqual([['shroud-t-get-x', 'shroud-t-get-x-stream']]);
    expect(w.schedules).toEqual([{ rule: 'Shroud-t/Rule', fn: 'shroud-t-scheduled-job', everyMs: 300_000, expression: 'rate(5 minutes)' }]);
    expect(w.queues).toEqual([
      { fn: 'shroud-t-scheduled-worker', queueArn: 'arn:aws:sqs:us-east-1:000000000000:jobs', batchSize: 1, reportBatchItemFailures: true, maxConcurrency: 3 },
    ]);
  });
});

describe('references of the templates (cdk/cloud-assembly.ts)', () => {
  it('resolves a dynamic reference joined from pieces, as CDK writes a secret of the stack', () => {
    const scope: Scope = { name: 'Shroud-t', file: 't.json', parameters: new Map(), template: { Resources: { S: { Type: 'AWS::SecretsManager::Secret' } } } };
    const resolver = {
      ...placeholderResolver,
      resource: () => 'arn:aws:secretsmanager:us-east-1:1:secret:s-AbCdEf',
      dynamicReference: (ref: string) => `value of ${ref}`,
    };
    const joined = { 'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: 'S' }, ':SecretString:::}}']] };
    expect(resolveValue(joined, scope, resolver)).toBe(
      'value of {{resolve:secretsmanager:arn:aws:secretsmanager:us-east-1:1:secret:s-AbCdEf:SecretString:::}}',
    );
  });
});

describe('the SQS poller on Moto', () => {
  let moto: Moto;
  beforeAll(async () => {
    moto = await startMoto();
  }, 90_000);
  afterAll(() => moto?.stop());

  it('deletes what succeeded, and a message reported failed goes to the dead-letter queue after maxReceiveCount receives', async () => {
    const sqs = new SQSClient({ region: 'us-east-1', endpoint: moto.endpoint, credentials: MOTO_CREDENTIALS });
    const dlq = (await sqs.send(new CreateQueueCommand({ QueueName: 'jobs-dlq' }))).QueueUrl!;
    const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
    // Visibility 0: a failed message is visible again at once (the stack's is 16 minutes).
    const queue = (
      await sqs.send(
        new CreateQueueCommand({
          QueueName: 'jobs',
          Attributes: { VisibilityTimeout: '0', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 3 }) },
        }),
      )
    ).QueueUrl!;
    const queueArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queue, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
    const seen: string[] = [];
    const stop = startSqsPoller({
      moto: moto.endpoint,
      queueUrl: queue,
      mapping: { fn: 'worker', queueArn, batchSize: 1, reportBatchItemFailures: true, maxConcurrency: 1 },
      invoke: async (event) => {
        const [r] = (event as { Records: { messageId: string; body: string; eventSourceARN: string }[] }).Records;
        expect(r!.eventSourceARN).toBe(queueArn);
        seen.push(r!.body);
        return { batchItemFailures: r!.body === 'bad' ? [{ itemIdentifier: r!.messageId }] : [] };
      },
      onError: (e) => {
        throw e;
      },
    });
    try {
      await sqs.send(new SendMessageCommand({ QueueUrl: queue, MessageBody: 'good' }));
      await sqs.send(new SendMessageCommand({ QueueUrl: queue, MessageBody: 'bad' }));
      const deadline = Date.now() + 30_000;
      let dead: string[] = [];
      while (Date.now() < deadline && !dead.length) {
        await new Promise((r) => setTimeout(r, 500));
        const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
        dead = (got.Messages ?? []).map((m) => m.Body!);
      }
      expect(dead).toEqual(['bad']);
      expect(seen.filter((b) => b === 'good')).toHaveLength(1);
      expect(seen.filter((b) => b === 'bad')).toHaveLength(3);
    } finally {
      await stop();
      sqs.destroy();
    }
  }, 60_000);
});
