import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { listDeposits } from '#lib/transfer/deposit-views.ts';
import { depositsResponse } from '#lib/transfer/schemas.ts';

export const handler = endpoint(routeOf('GET', '/api/transfer/deposits'), { responses: { 200: depositsResponse } }, async (req) =>
  listDeposits(req.session!.userId),
);
