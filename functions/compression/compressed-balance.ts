import { routeOf } from '#functions/routes.ts';
import { balanceParams, compressedBalance } from '#lib/compression/compression.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { compressedBalanceAnswer } from '#lib/compression/responses.ts';

export const handler = endpoint(
  routeOf('GET', '/api/compression/compressed-balance/:walletId'),
  { params: balanceParams, responses: { 200: compressedBalanceAnswer } },
  async (req) => compressedBalance(req.session!.userId, req.params.walletId),
);
