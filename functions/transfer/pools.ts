import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { listPools } from '#lib/transfer/pool-views.ts';
import { poolsResponse } from '#lib/transfer/schemas.ts';

export const handler = endpoint(routeOf('GET', '/api/transfer/pools'), { responses: { 200: poolsResponse } }, async () => listPools());
