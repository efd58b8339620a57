import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ecMul } from '#lib/zk/toolkit/ec.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/** POST /api/zk-toolkit/ec/mul: `point`, `scalar` (< 2^256) → `x`, `y` of scalar · point (off the curve: NOT_ON_CURVE). */
export const handler = endpoint(routeOf('POST', '/api/zk-toolkit/ec/mul'), { body: ecMul.schema, responses: { 200: toolkitAnswers.point } }, (req) =>
  ecMul.run(req.body),
);
