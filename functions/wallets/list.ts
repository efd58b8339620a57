import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { listWallets, listWalletsQuery } from '#lib/wallets/wallets.ts';

export const handler = endpoint(routeOf('GET', '/api/wallets'), { query: listWalletsQuery }, async (req) => ({
  wallets: await listWallets(req.session!.userId, req.query.chain),
}));
