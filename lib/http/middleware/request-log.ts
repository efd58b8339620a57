import { LogLevelThreshold } from '@aws-lambda-powertools/logger';
import { isAppError } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { recordRequest } from '#lib/metrics.ts';
import { responseHeaders, type HttpMiddleware, type HttpRequest } from './state.ts';

/**
 * The closing log line and the request metrics (EMF, lib/metrics.ts) of every request, on success
 * and on error alike, and the correlation id sent back as `X-Request-Id`. Never bodies, cookies or credentials: the route, status, timing and
 * error code only; a 5xx adds the error with its stack (to the log, never to the client).
 */
export const requestLog = (): HttpMiddleware => {
  const finish = (request: HttpRequest) => {
    const state = request.internal;
    const headers = responseHeaders(request);
    headers['x-request-id'] = state.requestId;
    const status = request.response?.statusCode ?? 200;
    const entry = {
      requestId: state.requestId,
      method: state.route.method,
      route: state.route.path,
      status,
      durationMs: Date.now() - state.started,
      code: status >= 400 && isAppError(request.error) ? request.error.code : undefined,
    };
    if (status >= 500) logger.error('request failed', { ...entry, error: request.error ?? undefined });
    // Only when the line would be written: Powertools reads the X-Ray trace id from the environment
    // and builds the entry before its own level check (about a tenth of a warm local request's stack).
    else if (logger.level <= LogLevelThreshold.INFO) logger.info('request', entry);
    // By the route table's path, never the raw path: one metric per route, not per id.
    recordRequest({ group: state.route.group, method: state.route.method, route: state.route.path, status, durationMs: entry.durationMs });
  };
  return { after: finish, onError: finish };
};
