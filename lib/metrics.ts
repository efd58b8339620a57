import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import * as z from 'zod';
import { config, readConfig } from '#lib/config.ts';
import { logger } from '#lib/log.ts';

/** CloudWatch namespace of every metric Shroud writes (the CDK alarms and dashboard read it). */
export const METRICS_NAMESPACE = 'Shroud';

/** The metric names, shared with the CDK alarms and dashboard so that both sides agree. */
export const METRIC = {
  requests: 'Requests',
  status: { 2: 'Status2xx', 3: 'Status3xx', 4: 'Status4xx', 5: 'Status5xx' },
  rateLimited: 'RateLimited',
  latency: 'Latency',
} as const;

const flag = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === '') return undefined;
    const s = v.trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(s)) return true;
    if (['false', '0', 'no', 'off'].includes(s)) return false;
    ctx.addIssue({ code: 'custom', message: 'expected true or false' });
    return z.NEVER;
  });

const settings = readConfig(
  z.object({
    /** Set by the Lambda runtime (`AWS_Lambda_nodejs22.x`); unset in the local runtime and in tests. */
    AWS_EXECUTION_ENV: z.string().optional(),
    /** Powertools' own switch; here it also turns metrics ON outside Lambda when `false`. */
    POWERTOOLS_METRICS_DISABLED: flag,
  }),
);

/**
 * EMF lines are written in Lambda, where CloudWatch turns them into metrics. Outside Lambda (the
 * local runtime, tests, benchmarks) nothing reads them, so they are off unless
 * `POWERTOOLS_METRICS_DISABLED=false` asks for them: then they are the very lines Lambda writes.
 */
export const metricsEnabled = settings.POWERTOOLS_METRICS_DISABLED === undefined ? !!settings.AWS_EXECUTION_ENV : !settings.POWERTOOLS_METRICS_DISABLED;

/**
 * One Powertools Metrics per process. Default dimensions: `service` and `stage`. Powertools' own
 * warnings go through the structured logger (and so obey `POWERTOOLS_LOG_LEVEL`).
 */
export const metrics = new Metrics({
  namespace: METRICS_NAMESPACE,
  serviceName: config.SERVICE_NAME,
  defaultDimensions: { stage: config.STAGE },
  logger,
});

export interface RequestRecord {
  /** The route group (`auth`, `storage`, ...): a second dimension set, for per-group views. */
  group: string;
  method: string;
  /** The route's path pattern as in the route table (`/api/storage/files/:id`), never the raw path. */
  route: string;
  status: number;
  durationMs: number;
}

/**
 * One EMF line for one finished request, dimensioned by `route` ("POST /api/auth/login") and,
 * as a second dimension set, by `group`: `Requests` 1, the status class count (`Status2xx` ...
 * `Status5xx`) 1, `RateLimited` 1 on a 429, `Latency` in ms. Counts are written only when they
 * happen (a route without 5xx never creates a `Status5xx` metric); the alarms fill gaps with 0.
 *
 * Dimensions and values are added and flushed in one synchronous step: concurrent invocations in
 * one process (the local runtime, Lambda managed instances) can never mix their dimensions, and
 * no buffer is left for a later flush to warn about.
 */
export function recordRequest(r: RequestRecord): void {
  if (!metricsEnabled) return;
  const statusClass = Math.trunc(r.status / 100);
  metrics.addDimension('route', `${r.method} ${r.route}`);
  metrics.addDimensions({ group: r.group });
  metrics.addMetric(METRIC.requests, MetricUnit.Count, 1);
  if (statusClass === 2 || statusClass === 3 || statusClass === 4 || statusClass === 5) {
    metrics.addMetric(METRIC.status[statusClass], MetricUnit.Count, 1);
  }
  if (r.status === 429) metrics.addMetric(METRIC.rateLimited, MetricUnit.Count, 1);
  metrics.addMetric(METRIC.latency, MetricUnit.Milliseconds, r.durationMs);
  metrics.publishStoredMetrics();
}

/** Powertools' `ColdStart` metric (dimension `function_name`), once per process, when enabled. */
export function recordColdStart(functionName: string): void {
  if (metricsEnabled) metrics.captureColdStartMetric(functionName);
}
