import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { logger } from '#lib/log.ts';
import { recordColdStart } from '#lib/metrics.ts';
import { tracer } from '#lib/tracer.ts';

type Middleware = middy.MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, Context>;

/** The logger's `correlation_id` is the API Gateway request id, the one returned as `X-Request-Id`. */
const correlationId = (): Middleware => ({
  before: (request) => {
    const id = request.event.requestContext?.requestId;
    if (id) logger.setCorrelationId(id);
  },
});

/** Powertools' `ColdStart` metric with the function's name (Lambda only; see lib/metrics.ts). */
const coldStartMetric = (): Middleware => ({
  before: (request) => recordColdStart(request.context.functionName),
});

/**
 * The Powertools middlewares of the handler stack, to `.use()` first (outermost), in this order:
 * - the Logger with the Lambda context (`function_name`, `function_request_id`, `cold_start`, ...)
 *   and the correlation id; its keys are reset after each invocation, so the stack's own closing
 *   log line must be written by a middleware used after these (its `after` runs before theirs);
 * - the Tracer's handler subsegment (`## index.handler`: `ColdStart` and `Service` annotations, errors).
 *   Responses are not recorded in traces: they carry cookies, identities and proofs;
 * - the `ColdStart` metric. Per-request metrics are `recordRequest()` (lib/metrics.ts), called by
 *   the stack once the status is known: it flushes its own EMF line, so Powertools' `logMetrics`
 *   (which flushes a shared buffer at the end and warns when it is empty) is not needed.
 */
export function observability(): Middleware[] {
  return [injectLambdaContext(logger, { resetKeys: true }), correlationId(), captureLambdaHandler(tracer, { captureResponse: false }), coldStartMetric()];
}

/**
 * For a runtime that runs several invocations at once in one process, as the local runtime does:
 * each invocation gets its own Powertools state (the logger's keys and Lambda context, metric
 * dimensions), as Lambda's runtime provides on multi-concurrency instances, through the same
 * invoke store Powertools reads. Without it, overlapping requests overwrite each other's
 * correlation id and Lambda context on the one shared logger.
 *
 * Returns `isolated(requestId, invoke)`: runs `invoke` (the handler call) in its own scope.
 */
export async function isolateInvocations(): Promise<<T>(requestId: string, invoke: () => T) => T> {
  const store = await InvokeStore.getInstanceAsync(true);
  // Read by Powertools on every access: from now on, state inside a scope is per invocation.
  process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= '1000';
  return (requestId, invoke) => store.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: requestId }, invoke);
}
