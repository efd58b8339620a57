import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { shamirCombine } from '#lib/zk/toolkit/shamir.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/** POST /api/zk-toolkit/shamir/combine: `shares` array of "i:value" → `secret` (malformed or too few: INVALID_SHARES). */
export const handler = endpoint(
  routeOf('POST', '/api/zk-toolkit/shamir/combine'),
  { body: shamirCombine.schema, responses: { 200: toolkitAnswers.shamirCombine } },
  (req) => shamirCombine.run(req.body),
);
