import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { hashPedersen } from '#lib/zk/toolkit/pedersen.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/** POST /api/zk-toolkit/hash/pedersen: `input` text or 0x-hex bytes (≤ 256), optional `encoding` → packed-point `hash` (0x + 64 hex) and `point`. */
export const handler = endpoint(
  routeOf('POST', '/api/zk-toolkit/hash/pedersen'),
  { body: hashPedersen.schema, responses: { 200: toolkitAnswers.hashPedersen } },
  (req) => hashPedersen.run(req.body),
);
