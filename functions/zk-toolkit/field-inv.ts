import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { fieldInv } from '#lib/zk/toolkit/field.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/** POST /api/zk-toolkit/field/inv: `a` → `result` = a⁻¹ mod r (a = 0: INVALID_INPUT). */
export const handler = endpoint(
  routeOf('POST', '/api/zk-toolkit/field/inv'),
  { body: fieldInv.schema, responses: { 200: toolkitAnswers.fieldResult } },
  (req) => fieldInv.run(req.body),
);
