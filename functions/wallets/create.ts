import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';
import { createWallet, createWalletInput } from '#lib/wallets/wallets.ts';
import { walletAnswer } from '#lib/wallets/responses.ts';

export const handler = endpoint(routeOf('POST', '/api/wallets'), { body: createWalletInput, responses: { 201: walletAnswer } }, async (req) =>
  reply(201, { wallet: await createWallet(req.session!.userId, req.body) }),
);
