import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { execute, executeInput, executeView } from '#lib/swap/swap.ts';

export const handler = endpoint(routeOf('POST', '/api/swap/execute'), { body: executeInput, responses: { 200: executeView } }, async (req) => execute(req.session!.userId, req.body));
