import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { hashPoseidon } from '#lib/zk/toolkit/poseidon.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/** POST /api/zk-toolkit/hash/poseidon: `input` (one element) or `inputs` (1–16) decimal strings → `hash` (0x + 64 hex), the input echoed. */
export const handler = endpoint(
  routeOf('POST', '/api/zk-toolkit/hash/poseidon'),
  { body: hashPoseidon.schema, responses: { 200: toolkitAnswers.hashPoseidon } },
  (req) => hashPoseidon.run(req.body),
);
