import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';
import { submittedAnswer } from '#lib/moves/responses.ts';
import { sweep, sweepInput, sweepParams, sweepView } from '#lib/swap/sweep.ts';

/** 200 once the sweep landed; 202 `submitted` when it was sent and the chain has not settled it yet (the journal will). */
export const handler = endpoint(
  routeOf('POST', '/api/swap/addresses/:address/sweep'),
  { params: sweepParams, body: sweepInput, responses: { 200: sweepView, 202: submittedAnswer } },
  async (req) => {
    const out = await sweep(req.session!.userId, req.params.address, req.body);
    return 'status' in out ? reply(202, out) : out;
  },
);
