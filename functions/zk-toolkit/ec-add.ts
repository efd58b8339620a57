import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ecAdd } from '#lib/zk/toolkit/ec.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/** POST /api/zk-toolkit/ec/add: `p1`, `p2` points → `x`, `y` of p1 + p2 (off the curve: NOT_ON_CURVE). */
export const handler = endpoint(routeOf('POST', '/api/zk-toolkit/ec/add'), { body: ecAdd.schema, responses: { 200: toolkitAnswers.point } }, (req) =>
  ecAdd.run(req.body),
);
