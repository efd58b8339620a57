import { routeOf } from '#functions/routes.ts';
import { transfer, transferInput } from '#lib/compression/compression.ts';
import { transferAnswer, submittedAnswer } from '#lib/compression/responses.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';

/** 200 once the chain confirmed it; 202 `submitted` when it was sent and the chain has not settled it yet (the journal will). */
export const handler = endpoint(
  routeOf('POST', '/api/compression/transfer'),
  { body: transferInput, responses: { 200: transferAnswer, 202: submittedAnswer } },
  async (req) => {
    const out = await transfer(req.session!.userId, req.body);
    return 'status' in out ? reply(202, out) : out;
  },
);
