import { routeOf } from '#functions/routes.ts';
import { authStatus } from '#lib/auth/oauth/status.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { statusResponse } from '#lib/auth/oauth/responses.ts';

export const handler = endpoint(routeOf('GET', '/api/zkauth/status'), { responses: { 200: statusResponse } }, (req) =>
  authStatus(req.sessionState, req.session),
);
