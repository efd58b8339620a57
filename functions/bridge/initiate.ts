import { routeOf } from '#functions/routes.ts';
import { initiateBridge, initiateInput, initiateResponse } from '#lib/bridge/bridge.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(routeOf('POST', '/api/bridge/initiate'), { body: initiateInput, responses: { 200: initiateResponse } }, async (req) =>
  initiateBridge(req.session!.userId, req.body),
);
