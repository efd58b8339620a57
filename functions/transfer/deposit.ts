import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { deposit } from '#lib/transfer/deposits.ts';
import { depositInput, depositResponse } from '#lib/transfer/schemas.ts';

export const handler = endpoint(routeOf('POST', '/api/transfer/deposit'), { body: depositInput, responses: { 200: depositResponse } }, async (req) =>
  deposit(req.session!.userId, req.body),
);
