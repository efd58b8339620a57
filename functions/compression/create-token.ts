import { routeOf } from '#functions/routes.ts';
import { createToken, createTokenInput } from '#lib/compression/compression.ts';
import { createTokenAnswer, submittedAnswer } from '#lib/compression/responses.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';

/** 200 once the chain confirmed the new mint; 202 `submitted` when it was sent and the chain has not settled it yet (the journal will). */
export const handler = endpoint(
  routeOf('POST', '/api/compression/create-token'),
  { body: createTokenInput, responses: { 200: createTokenAnswer, 202: submittedAnswer } },
  async (req) => {
    const out = await createToken(req.session!.userId, req.body);
    return 'status' in out ? reply(202, out) : out;
  },
);
