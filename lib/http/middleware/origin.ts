import { config } from '#lib/config.ts';
import { errors } from '#lib/errors.ts';
import { responseHeaders, type HttpMiddleware, type HttpRequest } from './state.ts';

/** Origins a browser page may call from: the configured ones and the API's own public origin. */
export function originAllowed(origin: string, settings = config): boolean {
  if (settings.CORS_ORIGINS.includes('*') || settings.CORS_ORIGINS.includes(origin)) return true;
  if (settings.PUBLIC_BASE_URL) {
    try {
      if (new URL(settings.PUBLIC_BASE_URL).origin === origin) return true;
    } catch {
      return false;
    }
  }
  return false;
}

const EXPOSED = 'x-request-id, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset, content-disposition';

/**
 * CSRF and CORS: a write from a browser page of a foreign origin is refused outright (403), not
 * just left unshared; an allowed origin gets the CORS headers on every answer, errors included.
 * The expected origins come from configuration only, never from request headers.
 */
export const originCheck = (): HttpMiddleware => {
  const share = (request: HttpRequest) => {
    const origin = request.internal.headers.origin;
    if (!origin || !originAllowed(origin)) return;
    Object.assign(responseHeaders(request), {
      'access-control-allow-origin': origin,
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': EXPOSED,
      vary: 'Origin',
    });
  };
  return {
    before: (request) => {
      const origin = request.internal.headers.origin;
      if (origin && request.internal.route.method !== 'GET' && !originAllowed(origin)) throw errors.forbidden('origin not allowed');
    },
    after: share,
    onError: share,
  };
};
