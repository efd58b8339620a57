import { routeOf } from '#functions/routes.ts';
import { mintTo, mintToInput } from '#lib/compression/compression.ts';
import { mintToAnswer, submittedAnswer } from '#lib/compression/responses.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';

/** 200 once the chain confirmed it; 202 `submitted` when it was sent and the chain has not settled it yet (the journal will). */
export const handler = endpoint(
  routeOf('POST', '/api/compression/mint-to'),
  { body: mintToInput, responses: { 200: mintToAnswer, 202: submittedAnswer } },
  async (req) => {
    const out = await mintTo(req.session!.userId, req.body);
    return 'status' in out ? reply(202, out) : out;
  },
);
