import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { claim, claimInput, claimView } from '#lib/rewards/rewards.ts';

export const handler = endpoint(routeOf('POST', '/api/rewards/claim'), { body: claimInput, responses: { 200: claimView } }, async (req) => claim(req.session!.userId, req.body));
