import { config } from '#lib/config.ts';
import { errors } from '#lib/errors.ts';
import { responseHeaders, type HttpMiddleware, type HttpRequest } from './state.ts';

const originOf = (url: string | undefined): string | undefined => {
  try {
    return url ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
};
/** The API's own public origin, parsed once at cold start. */
const ownOrigin = originOf(config.PUBLIC_BASE_URL);

/** Origins a browser page may call from: the configured ones and the API's own public origin. */
export function originAllowed(origin: string, settings: Pick<typeof config, 'CORS_ORIGINS' | 'PUBLIC_BASE_URL'> = config): boolean {
  if (settings.CORS_ORIGINS.includes('*') || settings.CORS_ORIGINS.includes(origin)) return true;
  const own = settings === config ? ownOrigin : originOf(settings.PUBLIC_BASE_URL);
  return own !== undefined && own === origin;
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
