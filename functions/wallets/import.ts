import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';
import { importWallet, importWalletInput } from '#lib/wallets/wallets.ts';
import { walletAnswer } from '#lib/wallets/responses.ts';

export const handler = endpoint(routeOf('POST', '/api/wallets/import'), { body: importWalletInput, responses: { 201: walletAnswer } }, async (req) =>
  reply(201, { wallet: await importWallet(req.session!.userId, req.body) }),
);
