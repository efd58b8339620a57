import { routeOf } from '#functions/routes.ts';
import { bridgeIdParams, bridgeStatus, statusResponse } from '#lib/bridge/bridge.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(routeOf('GET', '/api/bridge/status/:id'), { params: bridgeIdParams, responses: { 200: statusResponse } }, async (req) =>
  bridgeStatus(req.session!.userId, req.params.id),
);
