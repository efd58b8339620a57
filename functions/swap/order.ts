import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { orderOneView, orderParams } from '#lib/swap/http.ts';
import { getOrder } from '#lib/swap/orders.ts';

export const handler = endpoint(routeOf('GET', '/api/swap/orders/:id'), { params: orderParams, responses: { 200: orderOneView } }, async (req) =>
  getOrder(req.session!.userId, req.params.id),
);
