import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { transfer, transferInput, transferOutput } from '#lib/wallets/chain-b.ts';

export const handler = endpoint(routeOf('POST', '/api/chainb/transfer'), { body: transferInput, responses: { 200: transferOutput } }, async (req) =>
  transfer(req.session!.userId, req.body),
);
