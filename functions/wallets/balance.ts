import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { anyBalanceQuery, balanceOfWallet } from '#lib/wallets/by-chain.ts';
import { walletIdParams } from '#lib/wallets/wallets.ts';
import { balanceAnswer } from '#lib/wallets/responses.ts';

export const handler = endpoint(
  routeOf('GET', '/api/wallets/:id/balance'),
  { params: walletIdParams, query: anyBalanceQuery, responses: { 200: balanceAnswer } },
  async (req) => balanceOfWallet(req.session!.userId, req.params.id, req.query),
);
