import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ecMulbase } from '#lib/zk/toolkit/ec.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/** POST /api/zk-toolkit/ec/mulbase: `scalar` (< 2^256) → `x`, `y` of scalar · Base8. */
export const handler = endpoint(routeOf('POST', '/api/zk-toolkit/ec/mulbase'), { body: ecMulbase.schema, responses: { 200: toolkitAnswers.point } }, (req) =>
  ecMulbase.run(req.body),
);
