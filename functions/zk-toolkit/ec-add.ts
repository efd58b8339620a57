import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ecAdd } from '#lib/zk/toolkit/ec.ts';

/** POST /api/zk-toolkit/ec/add: `p1`, `p2` points → `x`, `y` of p1 + p2 (off the curve: NOT_ON_CURVE). */
export const handler = endpoint(routeOf('POST', '/api/zk-toolkit/ec/add'), { body: ecAdd.schema }, (req) =>
  ecAdd.run(req.body),
);
