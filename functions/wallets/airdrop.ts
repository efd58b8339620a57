import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { airdropToWallet, anyAirdropInput } from '#lib/wallets/by-chain.ts';
import { walletIdParams } from '#lib/wallets/wallets.ts';
import { airdropAnswer } from '#lib/wallets/responses.ts';

export const handler = endpoint(
  routeOf('POST', '/api/wallets/:id/airdrop'),
  { params: walletIdParams, body: anyAirdropInput, responses: { 200: airdropAnswer } },
  async (req) => airdropToWallet(req.session!.userId, req.params.id, req.body),
);
