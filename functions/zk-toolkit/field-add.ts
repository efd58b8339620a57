import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { fieldAdd } from '#lib/zk/toolkit/field.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/** POST /api/zk-toolkit/field/add: `a`, `b` → `result` = a + b mod r. */
export const handler = endpoint(
  routeOf('POST', '/api/zk-toolkit/field/add'),
  { body: fieldAdd.schema, responses: { 200: toolkitAnswers.fieldResult } },
  (req) => fieldAdd.run(req.body),
);
