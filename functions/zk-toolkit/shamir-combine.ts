import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { toolkit } from '#lib/zk/toolkit.ts';

/** POST /api/zk-toolkit/shamir/combine: `shares` array of "i:value" → `secret` (malformed or too few: INVALID_SHARES). */
export const handler = endpoint(routeOf('POST', '/api/zk-toolkit/shamir/combine'), { body: toolkit.shamirCombine.schema }, (req) =>
  toolkit.shamirCombine.run(req.body),
);
