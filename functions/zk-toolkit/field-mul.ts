import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { fieldMul } from '#lib/zk/toolkit/field.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/** POST /api/zk-toolkit/field/mul: `a`, `b` → `result` = a · b mod r. */
export const handler = endpoint(
  routeOf('POST', '/api/zk-toolkit/field/mul'),
  { body: fieldMul.schema, responses: { 200: toolkitAnswers.fieldResult } },
  (req) => fieldMul.run(req.body),
);
