import './xray-mode.ts'; // first: decides the X-Ray SDK's mode before it loads
import { Tracer } from '@aws-lambda-powertools/tracer';
import { config } from '#lib/config.ts';

/**
 * One X-Ray tracer per process. Powertools turns tracing on only inside Lambda (`AWS_EXECUTION_ENV`
 * set, not SAM local, `POWERTOOLS_TRACE_ENABLED` not `false`); in the local runtime and in tests
 * every call below is a no-op. Plain http(s) and fetch calls are not traced: their URLs can carry
 * provider keys (RPC endpoints) that must not end up in traces; the AWS SDK clients are.
 */
export const tracer = new Tracer({ serviceName: config.SERVICE_NAME, captureHTTPsRequests: false });

/**
 * An AWS SDK v3 client whose calls become X-Ray subsegments when tracing is on; the client itself,
 * untouched, otherwise. Call it where the client is built, once per cold start.
 */
export function captureClient<C>(client: C): C {
  return tracer.isTracingEnabled() ? tracer.captureAWSv3Client(client) : client;
}
