import * as z from 'zod';
import { routeOf } from '#functions/routes.ts';
import { completeAuthorization, prefersJson } from '#lib/auth/oauth/flow.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { SESSION_COOKIE } from '#lib/http/cookies.ts';
import { redirect, reply } from '#lib/http/reply.ts';
import { fromProviderResponse } from '#lib/auth/oauth/responses.ts';

// The query is the provider's (code, state, error…): read as is, every problem is an AUTH_FAILED outcome.
export const handler = endpoint(
  routeOf('GET', '/api/zkauth/callback/:provider'),
  { params: z.object({ provider: z.string().max(40) }), responses: { 302: fromProviderResponse } },
  async (req) => {
    const out = await completeAuthorization({
      provider: req.params.provider,
      query: req.query as Record<string, string | undefined>,
      cookies: req.cookies,
      sessionCookieName: SESSION_COOKIE,
      session: req.session,
      domainName: req.event.requestContext?.domainName,
    });
    if (!out.ok && prefersJson(req.headers.accept)) {
      return reply(401, { error: 'AUTH_FAILED', message: out.message }, { bare: true, cookies: out.cookies });
    }
    return redirect(out.location, out.cookies);
  },
);
