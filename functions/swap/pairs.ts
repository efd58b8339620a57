import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { pairsView } from '#lib/swap/http.ts';
import { pairs } from '#lib/swap/swap.ts';

export const handler = endpoint(routeOf('GET', '/api/swap/pairs'), { responses: { 200: pairsView } }, async () => pairs());
