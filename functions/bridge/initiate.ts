import { routeOf } from '#functions/routes.ts';
import { initiateBridge, initiateInput, initiateResponse, initiateSubmitted } from '#lib/bridge/bridge.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';

/** 200 with the record; 202 `submitted` when the service sent the deposit itself and the chain has not settled it yet (the journal will, then the relayer). */
export const handler = endpoint(
  routeOf('POST', '/api/bridge/initiate'),
  { body: initiateInput, responses: { 200: initiateResponse, 202: initiateSubmitted } },
  async (req) => {
    const out = await initiateBridge(req.session!.userId, req.body);
    return 'status' in out ? reply(202, out) : out;
  },
);
