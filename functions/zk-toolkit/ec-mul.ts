import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ecMul } from '#lib/zk/toolkit/ec.ts';

/** POST /api/zk-toolkit/ec/mul: `point`, `scalar` (< 2^256) → `x`, `y` of scalar · point (off the curve: NOT_ON_CURVE). */
export const handler = endpoint(routeOf('POST', '/api/zk-toolkit/ec/mul'), { body: ecMul.schema }, (req) =>
  ecMul.run(req.body),
);
