import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { balanceQuery, walletBalance, walletIdParams } from '#lib/wallets/wallets.ts';
import { balanceAnswer } from '#lib/wallets/responses.ts';

export const handler = endpoint(routeOf('GET', '/api/wallets/:id/balance'), { params: walletIdParams, query: balanceQuery, responses: { 200: balanceAnswer } }, async (req) =>
  walletBalance(req.session!.userId, req.params.id, req.query.mint),
);
