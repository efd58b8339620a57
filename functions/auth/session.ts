import { routeOf } from '#functions/routes.ts';
import { publicUser, sessionUser, sessionResponse } from '#lib/auth/identity.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(routeOf('GET', '/api/auth/session'), { responses: { 200: sessionResponse } }, async (req) => {
  const user = await sessionUser(req.session);
  return user ? { authenticated: true, user: publicUser(user) } : { authenticated: false };
});
