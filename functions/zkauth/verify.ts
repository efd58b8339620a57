import { routeOf } from '#functions/routes.ts';
import { sessionForProof, verify, verifyResponse } from '#lib/auth/stark-session/index.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { SESSION_COOKIE } from '#lib/http/cookies.ts';

export const handler = endpoint(routeOf('POST', '/api/zkauth/verify'), { responses: { 200: verifyResponse } }, async (req) =>
  verify(await sessionForProof(req.sessionState, req.session, req.cookies[SESSION_COOKIE])),
);
