import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { toolkit } from '#lib/zk/toolkit.ts';

/** POST /api/zk-toolkit/field/inv: `a` → `result` = a⁻¹ mod r (a = 0: INVALID_INPUT). */
export const handler = endpoint(routeOf('POST', '/api/zk-toolkit/field/inv'), { body: toolkit.fieldInv.schema }, (req) =>
  toolkit.fieldInv.run(req.body),
);
