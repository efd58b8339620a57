import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';
import { submittedAnswer } from '#lib/moves/responses.ts';
import { mintTestTokens, testTokensInput, testTokensResponse } from '#lib/transfer/test-token.ts';

/** 200 once the chain confirmed the mint; 202 `submitted` when it was sent and the chain has not settled it yet (the journal will). */
export const handler = endpoint(
  routeOf('POST', '/api/transfer/test-tokens'),
  { body: testTokensInput, responses: { 200: testTokensResponse, 202: submittedAnswer } },
  async (req) => {
    const out = await mintTestTokens(req.session!.userId, req.body);
    return 'status' in out ? reply(202, out) : out;
  },
);
