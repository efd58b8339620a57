import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { hashMimc } from '#lib/zk/toolkit/mimc.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/** POST /api/zk-toolkit/hash/mimc: `input`, optional `key` (default 0) decimal strings → MiMC7 `hash` (0x + 64 hex). */
export const handler = endpoint(routeOf('POST', '/api/zk-toolkit/hash/mimc'), { body: hashMimc.schema, responses: { 200: toolkitAnswers.hashMimc } }, (req) =>
  hashMimc.run(req.body),
);
