import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { getWallet, walletIdParams } from '#lib/wallets/wallets.ts';
import { walletAnswer } from '#lib/wallets/responses.ts';

export const handler = endpoint(routeOf('GET', '/api/wallets/:id'), { params: walletIdParams, responses: { 200: walletAnswer } }, async (req) => ({
  wallet: await getWallet(req.session!.userId, req.params.id),
}));
