import { routeOf } from '#functions/routes.ts';
import { bridgeIdParams, cancelBridge, statusResponse } from '#lib/bridge/bridge.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(routeOf('POST', '/api/bridge/:id/cancel'), { params: bridgeIdParams, responses: { 200: statusResponse } }, async (req) =>
  cancelBridge(req.session!.userId, req.params.id),
);
