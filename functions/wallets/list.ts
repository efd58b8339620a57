import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { listWallets, listWalletsQuery } from '#lib/wallets/wallets.ts';
import { walletsAnswer } from '#lib/wallets/responses.ts';

export const handler = endpoint(routeOf('GET', '/api/wallets'), { query: listWalletsQuery, responses: { 200: walletsAnswer } }, async (req) => ({
  wallets: await listWallets(req.session!.userId, req.query.chain),
}));
