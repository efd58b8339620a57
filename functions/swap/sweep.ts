import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { sweep, sweepInput, sweepParams, sweepView } from '#lib/swap/sweep.ts';

export const handler = endpoint(routeOf('POST', '/api/swap/addresses/:address/sweep'), { params: sweepParams, body: sweepInput, responses: { 200: sweepView } }, async (req) =>
  sweep(req.session!.userId, req.params.address, req.body),
);
