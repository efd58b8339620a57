import { routeOf } from '#functions/routes.ts';
import { compressedTokenBalance, tokenBalanceParams } from '#lib/compression/compression.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { compressedTokenBalanceAnswer } from '#lib/compression/responses.ts';

export const handler = endpoint(
  routeOf('GET', '/api/compression/compressed-token-balance/:walletId/:mint'),
  { params: tokenBalanceParams, responses: { 200: compressedTokenBalanceAnswer } },
  async (req) => compressedTokenBalance(req.session!.userId, req.params.walletId, req.params.mint),
);
