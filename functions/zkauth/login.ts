import * as z from 'zod';
import { routeOf } from '#functions/routes.ts';
import { startAuthorization } from '#lib/auth/oauth/flow.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { redirect } from '#lib/http/reply.ts';
import { toProviderResponse } from '#lib/auth/oauth/responses.ts';

export const loginQuery = z.object({
  provider: z.string().min(1).max(40),
  redirect: z.string().max(2048).optional(),
  login_hint: z.string().max(64).optional(),
  /** A native app's loopback login (RFC 8252): its S256 challenge, with a loopback `redirect`. */
  code_challenge: z.string().max(128).optional(),
  code_challenge_method: z.string().max(16).optional(),
});

/** The query's names as startAuthorization takes them (login and link alike). */
export const startOf = (q: z.infer<typeof loginQuery>) => ({
  provider: q.provider,
  redirect: q.redirect,
  loginHint: q.login_hint,
  codeChallenge: q.code_challenge,
  codeChallengeMethod: q.code_challenge_method,
});

export const handler = endpoint(routeOf('GET', '/api/zkauth/login'), { query: loginQuery, responses: { 302: toProviderResponse } }, async (req) => {
  const { location, cookies } = await startAuthorization({
    ...startOf(req.query),
    mode: 'login',
    domainName: req.event.requestContext?.domainName,
  });
  return redirect(location, cookies);
});
