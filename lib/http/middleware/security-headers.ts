import { securityHeaders as baseHeaders } from '../security-headers.ts';
import { responseHeaders, type HttpMiddleware, type HttpRequest } from './state.ts';

/**
 * The security headers on every answer, errors included, and `Cache-Control: no-store` by default.
 * Only a public answer (a route that reads no session and sets no cookie) may keep a cache policy
 * its handler chose (the circuit artifacts); anything tied to a session is never cached.
 */
export const securityHeaders = (): HttpMiddleware => {
  const base = baseHeaders();
  const apply = (request: HttpRequest) => {
    const headers = responseHeaders(request);
    Object.assign(headers, base);
    const personal = request.internal.route.auth !== 'none' || (request.response?.cookies?.length ?? 0) > 0;
    if (personal || !headers['cache-control']) headers['cache-control'] = 'no-store';
  };
  return { after: apply, onError: apply };
};
