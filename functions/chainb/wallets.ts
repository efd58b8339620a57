import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { chainBWalletsOutput, listChainBWallets } from '#lib/wallets/chain-b.ts';

export const handler = endpoint(routeOf('GET', '/api/chainb/wallets'), { responses: { 200: chainBWalletsOutput } }, async (req) =>
  listChainBWallets(req.session!.userId),
);
