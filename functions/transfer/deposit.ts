import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';
import { submittedAnswer } from '#lib/moves/responses.ts';
import { deposit } from '#lib/transfer/deposits.ts';
import { depositInput, depositResponse } from '#lib/transfer/schemas.ts';

/** 200 once the transfer landed (the commitment in the tree, or `transferred`: its append left to the retry job); 202 `submitted` when the chain has not settled the transfer yet (the journal and the retry job will). */
export const handler = endpoint(
  routeOf('POST', '/api/transfer/deposit'),
  { body: depositInput, responses: { 200: depositResponse, 202: submittedAnswer } },
  async (req) => {
    const out = await deposit(req.session!.userId, req.body);
    return 'status' in out ? reply(202, out) : out;
  },
);
