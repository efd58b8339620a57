import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { nullifierParams, nullifierResponse } from '#lib/transfer/schemas.ts';
import { nullifierStatus } from '#lib/transfer/withdrawals.ts';

export const handler = endpoint(
  routeOf('GET', '/api/transfer/nullifiers/:hash'),
  { params: nullifierParams, responses: { 200: nullifierResponse } },
  async (req) => nullifierStatus(req.params),
);
