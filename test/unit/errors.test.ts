import { describe, expect, it } from 'vitest';
import { errors, isDependencyFailure } from '#lib/errors.ts';
import { errorResult } from '#lib/http/middleware/error-response.ts';

describe('isDependencyFailure', () => {
  const sdk = (name: string, fault: 'client' | 'server') =>
    Object.assign(new Error(name), { name, $fault: fault, $metadata: { httpStatusCode: fault === 'server' ? 500 : 400 } });

  it('knows a service down, throttled or timing out, also as the cause of another error', () => {
    expect(isDependencyFailure(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDependencyFailure(sdk('InternalServerError', 'server'))).toBe(true);
    expect(isDependencyFailure(sdk('ProvisionedThroughputExceededException', 'client'))).toBe(true);
    expect(isDependencyFailure(Object.assign(new Error('t'), { name: 'TimeoutError' }))).toBe(true);
    expect(isDependencyFailure(new Error('wrapped', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) }))).toBe(true);
  });

  it('is not fooled by our bugs or the caller’s mistakes', () => {
    expect(isDependencyFailure(new TypeError('x is undefined'))).toBe(false);
    expect(isDependencyFailure(sdk('ValidationException', 'client'))).toBe(false);
    expect(isDependencyFailure(sdk('ConditionalCheckFailedException', 'client'))).toBe(false);
    expect(isDependencyFailure(undefined)).toBe(false);
  });

  it('makes the answer 503 SERVICE_UNAVAILABLE with Retry-After, keeping the cause for the log', () => {
    const { err, exposed } = errorResult(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }));
    expect(err).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', headers: { 'retry-after': '2' } });
    expect(exposed).toBe(false);
    expect(errorResult(errors.pinningError()).err.status).toBe(502);
  });
});
