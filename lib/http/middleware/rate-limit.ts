import { errors } from '#lib/errors.ts';
import { groups } from '../groups.ts';
import { hit as hitCounter, rateLimitHeaders } from '../rate-limit.ts';
import { responseHeaders, type HttpMiddleware, type HttpRequest } from './state.ts';

/**
 * The route group's limit per client. It runs before body parsing and validation so that
 * malformed requests count too; every answer of a limited route carries the RateLimit headers.
 */
export const rateLimit = (hit: typeof hitCounter = hitCounter): HttpMiddleware => {
  const headers = (request: HttpRequest) => {
    if (request.internal.rate) Object.assign(responseHeaders(request), rateLimitHeaders(request.internal.rate));
  };
  return {
    before: async (request) => {
      const state = request.internal;
      state.rate = await hit(state.route.group, state.client.key, groups[state.route.group].rateLimit);
      if (state.rate.exceeded) throw errors.rateLimited(state.rate.reset || 1);
    },
    after: headers,
    onError: headers,
  };
};
