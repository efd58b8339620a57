import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ledger, ledgerView } from '#lib/rewards/rewards.ts';

export const handler = endpoint(routeOf('GET', '/api/rewards/ledger'), { responses: { 200: ledgerView } }, async (req) => ledger(req.session!.userId));
