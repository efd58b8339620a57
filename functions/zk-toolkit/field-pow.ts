import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { fieldPow } from '#lib/zk/toolkit/field.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/** POST /api/zk-toolkit/field/pow: `base` (field element), `exp` (< 2^256) → `result` = base^exp mod r. */
export const handler = endpoint(
  routeOf('POST', '/api/zk-toolkit/field/pow'),
  { body: fieldPow.schema, responses: { 200: toolkitAnswers.fieldResult } },
  (req) => fieldPow.run(req.body),
);
