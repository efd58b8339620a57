import { routeOf } from '#functions/routes.ts';
import { balanceParams, compressedBalance } from '#lib/compression/compression.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(routeOf('GET', '/api/compression/compressed-balance/:walletId'), { params: balanceParams }, async (req) =>
  compressedBalance(req.session!.userId, req.params.walletId),
);
