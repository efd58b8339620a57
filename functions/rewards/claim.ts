import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';
import { submittedAnswer } from '#lib/moves/responses.ts';
import { claim, claimInput, claimView } from '#lib/rewards/rewards.ts';

/** 200 once the reward's mint is confirmed; 202 `submitted` when it was sent and the chain has not settled it yet (the claim stays reserved for it). */
export const handler = endpoint(
  routeOf('POST', '/api/rewards/claim'),
  { body: claimInput, responses: { 200: claimView, 202: submittedAnswer } },
  async (req) => {
    const out = await claim(req.session!.userId, req.body);
    return 'status' in out ? reply(202, out) : out;
  },
);
