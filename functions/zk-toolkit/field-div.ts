import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { toolkit } from '#lib/zk/toolkit.ts';

/** POST /api/zk-toolkit/field/div: `a`, `b` → `result` = a · b⁻¹ mod r (b = 0: INVALID_INPUT). */
export const handler = endpoint(routeOf('POST', '/api/zk-toolkit/field/div'), { body: toolkit.fieldDiv.schema }, (req) =>
  toolkit.fieldDiv.run(req.body),
);
