import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { airdrop, airdropInput, walletIdParams } from '#lib/wallets/wallets.ts';
import { airdropAnswer } from '#lib/wallets/responses.ts';

export const handler = endpoint(routeOf('POST', '/api/wallets/:id/airdrop'), { params: walletIdParams, body: airdropInput, responses: { 200: airdropAnswer } }, async (req) =>
  airdrop(req.session!.userId, req.params.id, req.body),
);
