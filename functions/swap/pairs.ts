import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { pairs, pairsView } from '#lib/swap/swap.ts';

export const handler = endpoint(routeOf('GET', '/api/swap/pairs'), { responses: { 200: pairsView } }, async () => pairs());
