import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { fieldInv } from '#lib/zk/toolkit/field.ts';

/** POST /api/zk-toolkit/field/inv: `a` → `result` = a⁻¹ mod r (a = 0: INVALID_INPUT). */
export const handler = endpoint(routeOf('POST', '/api/zk-toolkit/field/inv'), { body: fieldInv.schema }, (req) =>
  fieldInv.run(req.body),
);
