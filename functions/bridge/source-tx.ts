import { routeOf } from '#functions/routes.ts';
import { attachSourceTx, bridgeIdParams, sourceTxInput, statusResponse } from '#lib/bridge/bridge.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(
  routeOf('POST', '/api/bridge/:id/source-tx'),
  { params: bridgeIdParams, body: sourceTxInput, responses: { 200: statusResponse } },
  async (req) => attachSourceTx(req.session!.userId, req.params.id, req.body),
);
