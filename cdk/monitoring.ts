import { Duration } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  PeriodOverride,
  TextWidget,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import type { Route } from '../lib/http/route.ts';
import { METRIC, METRICS_NAMESPACE } from '../lib/metrics.ts';

/**
 * Alarms and the dashboard, over the EMF metrics that `recordRequest` (lib/metrics.ts) writes
 * (namespace `Shroud`, dimensions `service`, `stage` and `route` or `group`) and over what Lambda
 * and API Gateway publish themselves (throttles; 5xx that no function wrote, such as timeouts).
 */

/** The `service` dimension: every function runs with POWERTOOLS_SERVICE_NAME / SERVICE_NAME set to it. */
export const SERVICE = 'shroud';

/** A 5xx rate above this percentage over one period raises the alarm... */
export const ERROR_RATE_PERCENT = 5;
/** ...once the period has at least this many requests (1 failure in 3 requests is noise, not a rate). */
export const MIN_REQUESTS = 10;
export const PERIOD = Duration.minutes(5);

/** The `route` dimension of a route-table row, as recordRequest writes it: `POST /api/auth/login`. */
export const routeDimension = (row: Pick<Route, 'method' | 'path'>) => `${row.method} ${row.path}`;

const emf = (stage: string, metricName: string, dimension: { route: string } | { group: string }, statistic: string, label?: string) =>
  new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: SERVICE, stage, ...dimension },
    statistic,
    period: PERIOD,
    label,
  });

/** `100 · errors / requests`, 0 below MIN_REQUESTS; error counts are written only when they happen, so FILL. */
const errorRate = (requests: IMetric, errors: IMetric, label: string) =>
  new MathExpression({
    expression: `IF(requests >= ${MIN_REQUESTS}, 100 * FILL(errors, 0) / requests, 0)`,
    usingMetrics: { requests, errors },
    period: PERIOD,
    label,
  });

function alarm(scope: Construct, id: string, props: { name: string; description: string; metric: IMetric; threshold: number; topic?: ITopic }) {
  const a = new Alarm(scope, id, {
    alarmName: props.name.slice(0, 255),
    alarmDescription: props.description,
    metric: props.metric,
    threshold: props.threshold,
    comparisonOperator: props.threshold === 1 ? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD : ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  if (props.topic) {
    a.addAlarmAction(new SnsAction(props.topic));
    a.addOkAction(new SnsAction(props.topic));
  }
  return a;
}

/** A route's 5xx rate, from its own EMF metrics: `Status5xx / Requests > 5 %` over 5 minutes. */
export function routeErrorRateAlarm(scope: Construct, id: string, props: { stage: string; row: Pick<Route, 'method' | 'path'>; topic?: ITopic }) {
  const route = routeDimension(props.row);
  return alarm(scope, id, {
    name: `shroud-${props.stage}-5xx-rate ${route}`,
    description: `More than ${ERROR_RATE_PERCENT} % of ${route} answered 5xx over ${PERIOD.toMinutes()} minutes (at least ${MIN_REQUESTS} requests).`,
    metric: errorRate(emf(props.stage, METRIC.requests, { route }, 'Sum'), emf(props.stage, METRIC.status[5], { route }, 'Sum'), `${route} 5xx %`),
    threshold: ERROR_RATE_PERCENT,
    topic: props.topic,
  });
}

/** Any throttled invocation of one function within 5 minutes. */
export function throttleAlarm(scope: Construct, id: string, props: { functionName: string; throttles: IMetric; topic?: ITopic }) {
  return alarm(scope, id, {
    name: `${props.functionName}-throttles`,
    description: `${props.functionName} was throttled (concurrency exhausted): callers got errors.`,
    metric: props.throttles,
    threshold: 1,
    topic: props.topic,
  });
}

/**
 * The API's own 5xx rate as API Gateway counts it: it also sees what no function could write
 * (timeouts, crashes, throttled invocations, integration failures).
 */
export function apiErrorRateAlarm(scope: Construct, id: string, props: { stage: string; api: IHttpApi; topic?: ITopic }) {
  return alarm(scope, id, {
    name: `shroud-${props.stage}-api-5xx-rate`,
    description: `More than ${ERROR_RATE_PERCENT} % of all API requests answered 5xx over ${PERIOD.toMinutes()} minutes (at least ${MIN_REQUESTS} requests).`,
    metric: errorRate(
      props.api.metricCount({ period: PERIOD, statistic: 'Sum' }),
      props.api.metricServerError({ period: PERIOD, statistic: 'Sum' }),
      'API 5xx %',
    ),
    threshold: ERROR_RATE_PERCENT,
    topic: props.topic,
  });
}

/**
 * Where alarms notify: an SNS topic with an e-mail subscription when the `alarmEmail` context is
 * set, none otherwise. CloudWatch cannot publish to a topic under the AWS-managed SNS key, so the
 * topic has its own KMS key that CloudWatch may use.
 */
export function alarmTopic(scope: Construct, stage: string): ITopic | undefined {
  const email = scope.node.tryGetContext('alarmEmail') as string | undefined;
  if (!email) return undefined;
  const key = new Key(scope, 'AlarmTopicKey', {
    alias: `alias/shroud-${stage}-alarms`,
    description: `Encrypts the shroud-${stage} alarm topic`,
    enableKeyRotation: true,
  });
  key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
  const topic = new Topic(scope, 'AlarmTopic', {
    topicName: `shroud-${stage}-alarms`,
    displayName: `Shroud ${stage} alarms`,
    masterKey: key,
    enforceSSL: true,
  });
  topic.addSubscription(new EmailSubscription(email));
  return topic;
}

export interface DashboardGroup {
  name: string;
  /** Physical names of the group's functions (plain strings: no cross-stack references). */
  functionNames: string[];
}

/**
 * One dashboard per stage: the API as API Gateway sees it, then per route group (from the EMF
 * `group` dimension set) requests, 4xx/5xx, 429s, latency p50/p99, and Lambda throttles.
 */
export function dashboard(scope: Construct, props: { stage: string; api: IHttpApi; groups: DashboardGroup[] }) {
  const { stage, api, groups } = props;
  const perGroup = (metricName: string, statistic: string, suffix = '') =>
    groups.map((g) => emf(stage, metricName, { group: g.name }, statistic, `${g.name}${suffix}`));
  const graph = (title: string, left: IMetric[], unit?: string) =>
    new GraphWidget({ title, left, width: 12, height: 6, leftYAxis: { min: 0, label: unit, showUnits: false } });
  const throttles = groups
    .filter((g) => g.functionNames.length)
    .map((g, gi) => {
      // Ids are unique across the whole graph, not only within one expression.
      const usingMetrics: Record<string, IMetric> = {};
      g.functionNames.forEach((functionName, i) => {
        usingMetrics[`t${gi}_${i}`] = new Metric({
          namespace: 'AWS/Lambda',
          metricName: 'Throttles',
          dimensionsMap: { FunctionName: functionName },
          statistic: 'Sum',
          period: PERIOD,
        });
      });
      return new MathExpression({ expression: `SUM([${Object.keys(usingMetrics).join(',')}])`, usingMetrics, label: g.name, period: PERIOD });
    });

  const board = new Dashboard(scope, 'Dashboard', {
    dashboardName: `shroud-${stage}`,
    defaultInterval: Duration.hours(3),
    periodOverride: PeriodOverride.AUTO,
  });
  board.addWidgets(
    new TextWidget({
      markdown: `# Shroud ${stage}\nAPI Gateway's view first, then each route group from the functions' own metrics (namespace \`${METRICS_NAMESPACE}\`, ${PERIOD.toMinutes()}-minute periods). Alarms: a route's 5xx rate > ${ERROR_RATE_PERCENT} % (≥ ${MIN_REQUESTS} requests), any throttled function, the API's 5xx rate.`,
      width: 24,
      height: 2,
    }),
  );
  board.addWidgets(
    graph('API requests', [api.metricCount({ period: PERIOD, statistic: 'Sum', label: 'requests' })], 'count'),
    graph(
      'API 4xx / 5xx',
      [api.metricClientError({ period: PERIOD, statistic: 'Sum', label: '4xx' }), api.metricServerError({ period: PERIOD, statistic: 'Sum', label: '5xx' })],
      'count',
    ),
  );
  board.addWidgets(
    graph('Requests per group', perGroup(METRIC.requests, 'Sum'), 'count'),
    graph('4xx / 5xx per group', [...perGroup(METRIC.status[4], 'Sum', ' 4xx'), ...perGroup(METRIC.status[5], 'Sum', ' 5xx')], 'count'),
  );
  board.addWidgets(
    graph('429 rate limited per group', perGroup(METRIC.rateLimited, 'Sum'), 'count'),
    graph('Latency p50 / p99 per group', [...perGroup(METRIC.latency, 'p50', ' p50'), ...perGroup(METRIC.latency, 'p99', ' p99')], 'ms'),
  );
  board.addWidgets(
    graph('Lambda throttles per group', throttles, 'count'),
    graph(
      'API latency p50 / p99',
      [api.metricLatency({ period: PERIOD, statistic: 'p50', label: 'p50' }), api.metricLatency({ period: PERIOD, statistic: 'p99', label: 'p99' })],
      'ms',
    ),
  );
  return board;
}
