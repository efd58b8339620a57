import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { toolkit } from '#lib/zk/toolkit.ts';

/** POST /api/zk-toolkit/field/sub: `a`, `b` → `result` = a − b mod r. */
export const handler = endpoint(routeOf('POST', '/api/zk-toolkit/field/sub'), { body: toolkit.fieldSub.schema }, (req) =>
  toolkit.fieldSub.run(req.body),
);
