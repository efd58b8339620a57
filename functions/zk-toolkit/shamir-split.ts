import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { shamirSplit } from '#lib/zk/toolkit/shamir.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/** POST /api/zk-toolkit/shamir/split: `secret`, `threshold`, `shares` integers (2–255) → `shares` ("i:value"), `threshold`, `total`. */
export const handler = endpoint(
  routeOf('POST', '/api/zk-toolkit/shamir/split'),
  { body: shamirSplit.schema, responses: { 200: toolkitAnswers.shamirSplit } },
  (req) => shamirSplit.run(req.body),
);
