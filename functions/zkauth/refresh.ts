import { routeOf } from '#functions/routes.ts';
import { clientProofBody, refresh, sessionForProof, refreshResponse } from '#lib/auth/stark-session/index.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { SESSION_COOKIE } from '#lib/http/cookies.ts';

export const handler = endpoint(routeOf('POST', '/api/zkauth/refresh'), { body: clientProofBody, responses: { 200: refreshResponse } }, async (req) => {
  const cookie = req.cookies[SESSION_COOKIE];
  return refresh(cookie!, await sessionForProof(req.sessionState, req.session, cookie), req.body);
});
