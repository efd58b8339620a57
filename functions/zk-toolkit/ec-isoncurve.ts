import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ecIsoncurve } from '#lib/zk/toolkit/ec.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/** POST /api/zk-toolkit/ec/isoncurve: `x`, `y` → `onCurve`, `inSubgroup` booleans (reports, never NOT_ON_CURVE). */
export const handler = endpoint(
  routeOf('POST', '/api/zk-toolkit/ec/isoncurve'),
  { body: ecIsoncurve.schema, responses: { 200: toolkitAnswers.isOnCurve } },
  (req) => ecIsoncurve.run(req.body),
);
