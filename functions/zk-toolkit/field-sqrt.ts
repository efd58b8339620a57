import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { toolkit } from '#lib/zk/toolkit.ts';

/** POST /api/zk-toolkit/field/sqrt: `a` → `result`, the smaller square root (a non-residue: INVALID_INPUT). */
export const handler = endpoint(routeOf('POST', '/api/zk-toolkit/field/sqrt'), { body: toolkit.fieldSqrt.schema }, (req) =>
  toolkit.fieldSqrt.run(req.body),
);
