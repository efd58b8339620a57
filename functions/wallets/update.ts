import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { updateWallet, updateWalletInput, walletIdParams } from '#lib/wallets/wallets.ts';
import { walletAnswer } from '#lib/wallets/responses.ts';

export const handler = endpoint(
  routeOf('PATCH', '/api/wallets/:id'),
  { params: walletIdParams, body: updateWalletInput, responses: { 200: walletAnswer } },
  async (req) => ({
    wallet: await updateWallet(req.session!.userId, req.params.id, req.body),
  }),
);
