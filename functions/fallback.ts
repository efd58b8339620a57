import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createRouter } from '#lib/http/router.ts';
import { securityHeaders } from '#lib/http/security-headers.ts';
import { recordRequest } from '#lib/metrics.ts';
import { routes } from './routes.ts';
import { errors, type AppError } from '#lib/errors.ts';

/**
 * API Gateway's `$default` route: requests that match no row of the route table. A known path
 * with another method is 405 with `Allow`; anything else is 404 — both in the project's error shape.
 */
const router = createRouter(routes);

export async function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const match = router.match(event.requestContext.http.method, event.rawPath);
  const err: AppError = match.kind === 'method' ? errors.methodNotAllowed(match.allow) : errors.notFound(`no route ${event.rawPath}`);
  recordRequest({ group: 'fallback', method: 'ANY', route: '$default', status: err.status, durationMs: 0 });
  return {
    statusCode: err.status,
    headers: { ...securityHeaders(), 'cache-control': 'no-store', 'content-type': 'application/json', ...err.headers },
    body: JSON.stringify({ error: err.code, message: err.message }),
  };
}
