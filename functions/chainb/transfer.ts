import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';
import { transfer, transferInput, transferOutput, transferSubmittedOutput } from '#lib/wallets/chain-b.ts';

/** 200 once chain B has the transaction's receipt; 202 when it was sent but chain B did not say whether it landed. */
export const handler = endpoint(
  routeOf('POST', '/api/chainb/transfer'),
  { body: transferInput, responses: { 200: transferOutput, 202: transferSubmittedOutput } },
  async (req) => {
    const out = await transfer(req.session!.userId, req.body);
    return 'status' in out ? reply(202, out) : out;
  },
);
