import * as z from 'zod';
import { errors, isAppError, isDependencyFailure, type AppError } from '#lib/errors.ts';
import { describeZodError } from '../validation.ts';
import type { HttpMiddleware } from './state.ts';

/**
 * Any error as `{error, message}`: AppErrors speak (their status, code and headers); a dependency
 * that failed is 503 SERVICE_UNAVAILABLE with Retry-After; everything else is a bare 500 INTERNAL.
 * `exposed` is false when the original error must stay on the log line (with its stack).
 */
export function errorResult(e: unknown): { err: AppError; exposed: boolean } {
  if (isAppError(e)) return { err: e, exposed: true };
  if (e instanceof z.ZodError) return { err: errors.invalidInput(describeZodError('body', e)), exposed: true };
  // A dependency down is not our bug: 503 so clients retry; the cause stays on the log line.
  if (isDependencyFailure(e)) return { err: errors.serviceUnavailable(), exposed: false };
  return { err: errors.internal(), exposed: false };
}

/**
 * The one place errors become answers. It runs first among the error handlers, so the others
 * (CORS, rate-limit headers, the log line) decorate the answer it builds. An unknown error stays
 * on `request.error` for the log (with its stack) and is never sent.
 */
export const errorResponse = (): HttpMiddleware => ({
  onError: (request) => {
    const { err, exposed } = errorResult(request.error);
    request.response = {
      statusCode: err.status,
      headers: { 'content-type': 'application/json', ...err.headers },
      body: JSON.stringify({ error: err.code, message: err.message }),
    };
    if (exposed) request.error = err;
  },
});
