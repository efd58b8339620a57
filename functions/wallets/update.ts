import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { updateWallet, updateWalletInput, walletIdParams } from '#lib/wallets/wallets.ts';

export const handler = endpoint(routeOf('PATCH', '/api/wallets/:id'), { params: walletIdParams, body: updateWalletInput }, async (req) => ({
  wallet: await updateWallet(req.session!.userId, req.params.id, req.body),
}));
