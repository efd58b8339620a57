import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { toolkit } from '#lib/zk/toolkit.ts';

/** POST /api/zk-toolkit/field/add: `a`, `b` → `result` = a + b mod r. */
export const handler = endpoint(routeOf('POST', '/api/zk-toolkit/field/add'), { body: toolkit.fieldAdd.schema }, (req) =>
  toolkit.fieldAdd.run(req.body),
);
