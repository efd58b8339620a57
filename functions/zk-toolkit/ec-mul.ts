import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { toolkit } from '#lib/zk/toolkit.ts';

/** POST /api/zk-toolkit/ec/mul: `point`, `scalar` (< 2^256) → `x`, `y` of scalar · point (off the curve: NOT_ON_CURVE). */
export const handler = endpoint(routeOf('POST', '/api/zk-toolkit/ec/mul'), { body: toolkit.ecMul.schema }, (req) =>
  toolkit.ecMul.run(req.body),
);
