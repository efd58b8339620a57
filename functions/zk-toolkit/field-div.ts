import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { fieldDiv } from '#lib/zk/toolkit/field.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/** POST /api/zk-toolkit/field/div: `a`, `b` → `result` = a · b⁻¹ mod r (b = 0: INVALID_INPUT). */
export const handler = endpoint(
  routeOf('POST', '/api/zk-toolkit/field/div'),
  { body: fieldDiv.schema, responses: { 200: toolkitAnswers.fieldResult } },
  (req) => fieldDiv.run(req.body),
);
