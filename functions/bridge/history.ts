import { routeOf } from '#functions/routes.ts';
import { bridgeHistory, historyResponse } from '#lib/bridge/bridge.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(routeOf('GET', '/api/bridge/history'), { responses: { 200: historyResponse } }, async (req) =>
  bridgeHistory(req.session!.userId),
);
