import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { toolkit } from '#lib/zk/toolkit.ts';

/** POST /api/zk-toolkit/ec/mulbase: `scalar` (< 2^256) → `x`, `y` of scalar · Base8. */
export const handler = endpoint(routeOf('POST', '/api/zk-toolkit/ec/mulbase'), { body: toolkit.ecMulbase.schema }, (req) =>
  toolkit.ecMulbase.run(req.body),
);
