import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { fieldSub } from '#lib/zk/toolkit/field.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/** POST /api/zk-toolkit/field/sub: `a`, `b` → `result` = a − b mod r. */
export const handler = endpoint(
  routeOf('POST', '/api/zk-toolkit/field/sub'),
  { body: fieldSub.schema, responses: { 200: toolkitAnswers.fieldResult } },
  (req) => fieldSub.run(req.body),
);
