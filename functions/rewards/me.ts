import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { me, meView } from '#lib/rewards/rewards.ts';

export const handler = endpoint(routeOf('GET', '/api/rewards/me'), { responses: { 200: meView } }, async (req) => me(req.session!.userId));
