/**
 * How the synthesized templates connect the functions, read back for the asset mode
 * (cdk/start-assets.ts): which function each API route invokes (Route → Integration → function),
 * which one a streaming route's function URL invokes, which ones EventBridge rules run and how
 * often, and which ones SQS event source mappings feed (batch size, partial batch responses,
 * maximum concurrency).
 */
import { resolveValue, type Resolver, type Scope } from './cloud-assembly.ts';

export interface Schedule {
  rule: string;
  fn: string;
  everyMs: number;
  expression: string;
}

export interface QueueMapping {
  fn: string;
  queueArn: string;
  batchSize: number;
  reportBatchItemFailures: boolean;
  maxConcurrency: number;
}

export interface Wiring {
  /** `METHOD /path/{param}` (and `$default`) → the function's name. */
  routes: Map<string, string>;
  /** A function's name → its function URL's function (RESPONSE_STREAM), for the streaming routes. */
  streams: Map<string, string>;
  schedules: Schedule[];
  queues: QueueMapping[];
}

const FN = 'fn:';

/** `rate(15 minutes)` → ms; cron expressions are not run here (the stack has none). */
export function rateMs(expression: string): number {
  const m = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (!m) throw new Error(`schedule ${expression}: only rate(...) expressions are run in the asset mode`);
  const unit = { minute: 60_000, hour: 3_600_000, day: 86_400_000 }[m[2]!.replace(/s$/, '') as 'minute' | 'hour' | 'day'];
  return Number(m[1]) * unit;
}

export function readWiring(scopes: Scope[], local: Resolver): Wiring {
  // Functions and integrations resolve to markers; everything else to its local value.
  const names: Resolver = {
    ...local,
    resource(ref) {
      const { resource, stack } = ref;
      if (resource.Type === 'AWS::Lambda::Function') return FN + resolveValue(resource.Properties!.FunctionName, stack, names);
      if (resource.Type === 'AWS::ApiGatewayV2::Integration') return resolveValue(resource.Properties!.IntegrationUri, stack, names);
      if (resource.Type === 'AWS::Lambda::Url') return resolveValue(resource.Properties!.TargetFunctionArn, stack, names);
      return local.resource(ref);
    },
  };
  const fnOf = (v: string, what: string) => {
    const i = v.indexOf(FN);
    if (i < 0) throw new Error(`${what}: ${v} is not one of the assembly's functions`);
    return v.slice(i + FN.length);
  };
  const wiring: Wiring = { routes: new Map(), streams: new Map(), schedules: [], queues: [] };
  for (const scope of scopes) {
    for (const [id, r] of Object.entries(scope.template.Resources ?? {})) {
      const p = r.Properties ?? {};
      if (r.Type === 'AWS::ApiGatewayV2::Route') wiring.routes.set(String(p.RouteKey), fnOf(resolveValue(p.Target, scope, names), `${scope.name}/${id}`));
      else if (r.Type === 'AWS::Lambda::Url' && p.InvokeMode === 'RESPONSE_STREAM') {
        const stream = fnOf(resolveValue(p.TargetFunctionArn, scope, names), `${scope.name}/${id}`);
        // cdk/ai.ts names a route's streaming function `<the route's function>-stream`.
        wiring.streams.set(stream.replace(/-stream$/, ''), stream);
      } else if (r.Type === 'AWS::Events::Rule' && p.ScheduleExpression && p.State !== 'DISABLED') {
        const expression = String(p.ScheduleExpression);
        for (const t of (p.Targets ?? []) as { Arn: unknown }[])
          wiring.schedules.push({
            rule: `${scope.name}/${id}`,
            fn: fnOf(resolveValue(t.Arn, scope, names), `${scope.name}/${id}`),
            everyMs: rateMs(expression),
            expression,
          });
      } else if (r.Type === 'AWS::Lambda::EventSourceMapping' && p.Enabled !== false) {
        wiring.queues.push({
          fn: fnOf(FN + resolveValue(p.FunctionName, scope, names).replace(FN, ''), `${scope.name}/${id}`),
          queueArn: resolveValue(p.EventSourceArn, scope, names),
          batchSize: Number(p.BatchSize ?? 10),
          reportBatchItemFailures: ((p.FunctionResponseTypes ?? []) as string[]).includes('ReportBatchItemFailures'),
          maxConcurrency: Number((p.ScalingConfig as { MaximumConcurrency?: number } | undefined)?.MaximumConcurrency ?? 5),
        });
      }
    }
  }
  return wiring;
}
