import { routeOf } from '#functions/routes.ts';
import { clearSessionCookie } from '#lib/auth/identity.ts';
import { logoutSession } from '#lib/auth/stark-session/logout.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { SESSION_COOKIE } from '#lib/http/cookies.ts';
import { reply } from '#lib/http/reply.ts';
import { logoutResponse } from '#lib/auth/oauth/responses.ts';

export const handler = endpoint(routeOf('POST', '/api/zkauth/logout'), { responses: { 200: logoutResponse } }, async (req) => {
  const { proofRevoked } = await logoutSession(req.cookies[SESSION_COOKIE]);
  return reply(200, { loggedOut: true, proofRevoked }, { cookies: [clearSessionCookie()] });
});
