import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { toolkit } from '#lib/zk/toolkit.ts';

/** POST /api/zk-toolkit/field/pow: `base` (field element), `exp` (< 2^256) → `result` = base^exp mod r. */
export const handler = endpoint(routeOf('POST', '/api/zk-toolkit/field/pow'), { body: toolkit.fieldPow.schema }, (req) =>
  toolkit.fieldPow.run(req.body),
);
