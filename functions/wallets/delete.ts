import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { deleteWallet, walletIdParams } from '#lib/wallets/wallets.ts';
import { walletDeletedAnswer } from '#lib/wallets/responses.ts';

export const handler = endpoint(routeOf('DELETE', '/api/wallets/:id'), { params: walletIdParams, responses: { 200: walletDeletedAnswer } }, async (req) =>
  deleteWallet(req.session!.userId, req.params.id),
);
