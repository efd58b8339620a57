import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { getPoolView } from '#lib/transfer/pool-views.ts';
import { poolParams, poolResponse } from '#lib/transfer/schemas.ts';

export const handler = endpoint(routeOf('GET', '/api/transfer/pools/:id'), { params: poolParams, responses: { 200: poolResponse } }, async (req) =>
  getPoolView(req.params.id),
);
