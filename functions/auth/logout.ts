import { routeOf } from '#functions/routes.ts';
import { logout, messageResponse } from '#lib/auth/identity.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { SESSION_COOKIE } from '#lib/http/cookies.ts';
import { reply } from '#lib/http/reply.ts';

export const handler = endpoint(routeOf('POST', '/api/auth/logout'), { responses: { 200: messageResponse } }, async (req) =>
  reply(200, { message: 'logged out' }, { cookies: [await logout(req.cookies[SESSION_COOKIE])] }),
);
