import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { withdrawInput, withdrawResponse } from '#lib/transfer/schemas.ts';
import { withdraw } from '#lib/transfer/withdrawals.ts';

/** No session: a withdrawal is tied to no account (limited per source IP). */
export const handler = endpoint(routeOf('POST', '/api/transfer/withdraw'), { body: withdrawInput, responses: { 200: withdrawResponse } }, async (req) =>
  withdraw(req.body),
);
