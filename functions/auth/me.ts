import { routeOf } from '#functions/routes.ts';
import { requireUser, meResponse } from '#lib/auth/identity.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(routeOf('GET', '/api/auth/me'), { responses: { 200: meResponse } }, async (req) => {
  const user = await requireUser(req.session);
  return { user: { id: user.id, zkId: user.zkId ?? null, username: user.username ?? null } };
});
