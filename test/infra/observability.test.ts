import { Aspects, NestedStack, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ShroudStack } from '../../cdk/stack.ts';
import { routes } from '../../functions/routes.ts';
import { testApp } from '../support/cdk.ts';

/**
 * Observability in the synthesized stack (`cdk synth -c stage=ci`, without bundling): X-Ray on
 * every function, a 5xx-rate alarm per route over the functions' EMF metrics, a throttles alarm per
 * function, the API's own 5xx alarm, one dashboard; and, with `alarmEmail`, an encrypted SNS topic.
 */
type Resource = { Type: string; Properties: Record<string, any> };
type Stat = {
  Id: string;
  Expression?: string;
  MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions: { Name: string; Value: unknown }[] }; Period: number; Stat: string };
};

/** Streaming routes get a second function behind a function URL (cdk/ai.ts), watched for throttles too. */
const streamed = routes.filter((r) => r.stream).length;

function synth(context: Record<string, unknown>, nag = false) {
  process.env.CDK_VALIDATION = 'false';
  const app = testApp({ context: { 'aws:cdk:bundling-stacks': [], stage: 'ci', ...context } });
  const root = new ShroudStack(app, 'Shroud-ci', { stage: 'ci' });
  if (nag) Aspects.of(app).add(new AwsSolutionsChecks());
  const stacks: Stack[] = [root, ...root.node.children.filter((c): c is NestedStack => c instanceof NestedStack)];
  const templates = stacks.map((s) => Template.fromStack(s));
  // Without CDK's own BucketDeployment handler (it uploads the browser terminal's site; not ours to trace).
  const resources = (type: string) =>
    templates.flatMap(
      (t) =>
        Object.entries(t.findResources(type))
          .filter(([id]) => !id.startsWith('CustomCDKBucketDeployment'))
          .map(([, r]) => r) as Resource[],
    );
  return { root, rootTemplate: templates[0]!, templates, resources };
}

let plain: ReturnType<typeof synth>;
beforeAll(() => {
  plain = synth({});
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

const dims = (s: Stat) => Object.fromEntries(s.MetricStat!.Metric.Dimensions.map((d) => [d.Name, d.Value]));

describe('tracing', () => {
  it('is Active on every function, with the Powertools settings and responses kept out of traces', () => {
    const fns = plain.resources('AWS::Lambda::Function');
    expect(fns).toHaveLength(routes.length + 7 + streamed); // + the $default fallback, the scheduled sweeper (two passes), transfer retry, reward accrual retry, reward epochs and bridge relayer, streaming routes' function-URL functions
    for (const f of fns) {
      expect(f.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(f.Properties.Environment.Variables).toMatchObject({
        POWERTOOLS_SERVICE_NAME: 'shroud',
        SERVICE_NAME: 'shroud',
        POWERTOOLS_METRICS_NAMESPACE: 'Shroud',
        POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
        STAGE: 'ci',
      });
    }
  });

  it('lets every group role write trace segments', () => {
    const policies = plain.resources('AWS::IAM::Policy');
    const roles = plain.resources('AWS::IAM::Role');
    const withXray = policies.filter((p) =>
      (p.Properties.PolicyDocument.Statement as { Action: string | string[] }[]).some((s) => [s.Action].flat().includes('xray:PutTraceSegments')),
    );
    expect(withXray.length).toBe(roles.length);
  });
});

describe('alarms', () => {
  const alarms = () => plain.resources('AWS::CloudWatch::Alarm');

  it("watch every route's 5xx rate with metric math over its EMF metrics: > 5 % over 5 minutes, at least 10 requests", () => {
    const rate = alarms().filter((a) => String(a.Properties.AlarmName).startsWith('shroud-ci-5xx-rate '));
    expect(rate).toHaveLength(routes.length);
    const watched = new Set<string>();
    for (const a of rate) {
      const p = a.Properties;
      expect(p).toMatchObject({ Threshold: 5, ComparisonOperator: 'GreaterThanThreshold', EvaluationPeriods: 1, TreatMissingData: 'notBreaching' });
      const metrics = p.Metrics as Stat[];
      expect(metrics.find((m) => m.Expression)!.Expression).toBe('IF(requests >= 10, 100 * FILL(errors, 0) / requests, 0)');
      const requests = metrics.find((m) => m.Id === 'requests')!;
      const errors = metrics.find((m) => m.Id === 'errors')!;
      for (const [stat, name] of [
        [requests, 'Requests'],
        [errors, 'Status5xx'],
      ] as const) {
        expect(stat.MetricStat).toMatchObject({ Metric: { Namespace: 'Shroud', MetricName: name }, Period: 300, Stat: 'Sum' });
      }
      expect(dims(errors)).toEqual(dims(requests));
      expect(dims(requests)).toMatchObject({ service: 'shroud', stage: 'ci' });
      watched.add(String(dims(requests).route));
    }
    expect([...watched].sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
  });

  it('watch what recordRequest really writes: the same namespace, dimension names and values', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    vi.stubEnv('STAGE', 'ci');
    vi.stubEnv('SERVICE_NAME', 'shroud');
    vi.resetModules();
    const { recordRequest } = await import('#lib/metrics.ts');
    const row = routes.find((r) => r.group === 'storage')!;
    const lines: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => (lines.push(String(c)), true));
    try {
      recordRequest({ group: row.group, method: row.method, route: row.path, status: 503, durationMs: 5 });
    } finally {
      spy.mockRestore();
    }
    const emf = JSON.parse(lines.join('')) as Record<string, any>;
    const alarm = alarms().find((a) => a.Properties.AlarmName === `shroud-ci-5xx-rate ${row.method} ${row.path}`)!;
    const errors = (alarm.Properties.Metrics as Stat[]).find((m) => m.Id === 'errors')!;
    const directive = emf._aws.CloudWatchMetrics[0];
    expect(directive.Namespace).toBe(errors.MetricStat!.Metric.Namespace);
    expect(directive.Dimensions).toContainEqual(expect.arrayContaining(Object.keys(dims(errors))));
    expect(directive.Dimensions[0]).toHaveLength(Object.keys(dims(errors)).length);
    expect(emf).toMatchObject(dims(errors));
    expect(emf[errors.MetricStat!.Metric.MetricName]).toBe(1);
  });

  it("watch every function's throttles", () => {
    const throttles = alarms().filter((a) => a.Properties.MetricName === 'Throttles');
    expect(throttles).toHaveLength(routes.length + 1 + streamed);
    for (const a of throttles) {
      expect(a.Properties).toMatchObject({
        Namespace: 'AWS/Lambda',
        Statistic: 'Sum',
        Period: 300,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      expect(a.Properties.Dimensions).toEqual([{ Name: 'FunctionName', Value: { Ref: expect.any(String) } }]);
    }
  });

  it("watch the API's own 5xx rate as API Gateway counts it", () => {
    plain.rootTemplate.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'shroud-ci-api-5xx-rate',
      Threshold: 5,
      ComparisonOperator: 'GreaterThanThreshold',
      Metrics: Match.arrayWith([
        Match.objectLike({ Expression: 'IF(requests >= 10, 100 * FILL(errors, 0) / requests, 0)' }),
        Match.objectLike({ Id: 'requests', MetricStat: Match.objectLike({ Metric: Match.objectLike({ Namespace: 'AWS/ApiGateway', MetricName: 'Count' }) }) }),
        Match.objectLike({ Id: 'errors', MetricStat: Match.objectLike({ Metric: Match.objectLike({ Namespace: 'AWS/ApiGateway', MetricName: '5xx' }) }) }),
      ]),
    });
  });

  it('notify nobody unless alarmEmail is set', () => {
    expect(plain.resources('AWS::SNS::Topic')).toEqual([]);
    for (const a of alarms()) expect(a.Properties.AlarmActions).toBeUndefined();
  });
});

describe('the dashboard', () => {
  it('is one per stage, with requests, 4xx/5xx, 429s, latency p50/p99 per group and throttles', () => {
    const boards = plain.resources('AWS::CloudWatch::Dashboard');
    expect(boards).toHaveLength(1);
    expect(boards[0]!.Properties.DashboardName).toBe('shroud-ci');
    // The body is a Fn::Join over the region and the API id; its literal parts hold the widgets.
    const body = JSON.stringify(boards[0]!.Properties.DashboardBody);
    for (const title of [
      'API requests',
      'API 4xx / 5xx',
      'Requests per group',
      '4xx / 5xx per group',
      '429 rate limited per group',
      'Latency p50 / p99 per group',
      'Lambda throttles per group',
      'API latency p50 / p99',
    ]) {
      expect(body).toContain(title);
    }
    for (const metric of ['Requests', 'Status4xx', 'Status5xx', 'RateLimited', 'Latency', 'Throttles']) expect(body).toContain(`\\"${metric}\\"`);
    for (const stat of ['p50', 'p99']) expect(body).toContain(`\\"stat\\":\\"${stat}\\"`);
    for (const group of new Set(routes.map((r) => r.group))) expect(body).toContain(`\\"group\\",\\"${group}\\"`);
    // Throttles by plain function name: no cross-stack reference per function.
    for (const r of routes.slice(0, 3)) expect(body).toMatch(new RegExp(`FunctionName\\\\",\\\\"shroud-ci-${r.method.toLowerCase()}-`));
  });
});

describe('with alarmEmail', () => {
  it('sends every alarm to an SNS topic under its own rotating KMS key, and still passes cdk-nag', () => {
    const withTopic = synth({ alarmEmail: 'ops@example.com' }, true);
    const topics = withTopic.resources('AWS::SNS::Topic');
    expect(topics).toHaveLength(1);
    expect(topics[0]!.Properties).toMatchObject({ TopicName: 'shroud-ci-alarms', KmsMasterKeyId: expect.anything() });
    withTopic.rootTemplate.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    withTopic.rootTemplate.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: Match.objectLike({
        Statement: Match.arrayWith([Match.objectLike({ Principal: { Service: 'cloudwatch.amazonaws.com' }, Action: ['kms:Decrypt', 'kms:GenerateDataKey*'] })]),
      }),
    });
    const alarms = withTopic.resources('AWS::CloudWatch::Alarm');
    expect(alarms).toHaveLength(2 * routes.length + 2 + streamed);
    for (const a of alarms) {
      expect(a.Properties.AlarmActions).toHaveLength(1);
      expect(a.Properties.OKActions).toHaveLength(1);
    }
    const errors = Annotations.fromStack(withTopic.root).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'));
    expect(errors.map((e) => `${e.id}: ${String(e.entry.data).slice(0, 120)}`)).toEqual([]);
  });
});
