import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { addressesView } from '#lib/swap/http.ts';
import { listOneTimeAddresses } from '#lib/swap/orders.ts';

export const handler = endpoint(routeOf('GET', '/api/swap/addresses'), { responses: { 200: addressesView } }, async (req) =>
  listOneTimeAddresses(req.session!.userId),
);
