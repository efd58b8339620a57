import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { fieldSqrt } from '#lib/zk/toolkit/field.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/** POST /api/zk-toolkit/field/sqrt: `a` → `result`, the smaller square root (a non-residue: INVALID_INPUT). */
export const handler = endpoint(
  routeOf('POST', '/api/zk-toolkit/field/sqrt'),
  { body: fieldSqrt.schema, responses: { 200: toolkitAnswers.fieldResult } },
  (req) => fieldSqrt.run(req.body),
);
