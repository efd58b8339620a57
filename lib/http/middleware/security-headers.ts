import { securityHeaders as baseHeaders } from '../security-headers.ts';
import { responseHeaders, type HttpMiddleware, type HttpRequest } from './state.ts';

/**
 * The security headers on every answer, errors included, and `Cache-Control: no-store` by default.
 * A public answer may set its own Content-Security-Policy (the API reference page loads its scripts).
 * Only a public answer (a route that reads no session and sets no cookie) may keep a cache policy
 * its handler chose (the circuit artifacts); anything tied to a session is never cached.
 */
export const securityHeaders = (): HttpMiddleware => {
  const base = baseHeaders();
  const apply = (request: HttpRequest) => {
    const headers = responseHeaders(request);
    const chosenPolicy = headers['content-security-policy'];
    Object.assign(headers, base);
    const personal = request.internal.route.auth !== 'none' || (request.response?.cookies?.length ?? 0) > 0;
    // A public page (the API reference) may allow its own scripts and styles; nothing tied to a session can.
    if (chosenPolicy && !personal) headers['content-security-policy'] = chosenPolicy;
    if (personal || !headers['cache-control']) headers['cache-control'] = 'no-store';
  };
  return { after: apply, onError: apply };
};
