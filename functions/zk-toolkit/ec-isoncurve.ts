import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { toolkit } from '#lib/zk/toolkit.ts';

/** POST /api/zk-toolkit/ec/isoncurve: `x`, `y` → `onCurve`, `inSubgroup` booleans (reports, never NOT_ON_CURVE). */
export const handler = endpoint(routeOf('POST', '/api/zk-toolkit/ec/isoncurve'), { body: toolkit.ecIsoncurve.schema }, (req) =>
  toolkit.ecIsoncurve.run(req.body),
);
