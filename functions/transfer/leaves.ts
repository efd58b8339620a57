import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { listLeaves } from '#lib/transfer/pool-views.ts';
import { leavesQuery, leavesResponse, poolParams } from '#lib/transfer/schemas.ts';

export const handler = endpoint(
  routeOf('GET', '/api/transfer/pools/:id/leaves'),
  { params: poolParams, query: leavesQuery, responses: { 200: leavesResponse } },
  async (req) => listLeaves(req.params.id, req.query),
);
