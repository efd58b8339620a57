import { routeOf } from '#functions/routes.ts';
import { authStatus } from '#lib/auth/oauth/status.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(routeOf('GET', '/api/zkauth/status'), {}, (req) => authStatus(req.sessionState, req.session));
