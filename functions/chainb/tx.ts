import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { transaction, txOutput, txParams } from '#lib/wallets/chain-b.ts';

export const handler = endpoint(routeOf('GET', '/api/chainb/tx/:hash'), { params: txParams, responses: { 200: txOutput } }, async (req) =>
  transaction(req.params.hash),
);
