import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';
import { submittedAnswer } from '#lib/moves/responses.ts';
import { executeInput, executeView } from '#lib/swap/http.ts';
import { execute } from '#lib/swap/swap.ts';

/** 200 once the swap landed; 202 `submitted` when it was sent and the chain has not settled it yet (the journal executes or fails the order). */
export const handler = endpoint(
  routeOf('POST', '/api/swap/execute'),
  { body: executeInput, responses: { 200: executeView, 202: submittedAnswer } },
  async (req) => {
    const out = await execute(req.session!.userId, req.body);
    return 'status' in out ? reply(202, out) : out;
  },
);
