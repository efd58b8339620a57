import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { balance, balanceOutput, balanceParams, balanceQuery } from '#lib/wallets/chain-b.ts';

export const handler = endpoint(
  routeOf('GET', '/api/chainb/balance/:address'),
  { params: balanceParams, query: balanceQuery, responses: { 200: balanceOutput } },
  async (req) => balance(req.params.address, req.query.token),
);
