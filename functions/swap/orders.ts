import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ordersView } from '#lib/swap/http.ts';
import { listOrders } from '#lib/swap/orders.ts';

export const handler = endpoint(routeOf('GET', '/api/swap/orders'), { responses: { 200: ordersView } }, async (req) => listOrders(req.session!.userId));
