import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { getProof } from '#lib/proofs/history.ts';
import { proofIdParams, proofResponse } from '#lib/proofs/routes.ts';

/** GET /api/proofs/:id: one of the caller's records (another's: 404 as an unknown one). */
export const handler = endpoint(routeOf('GET', '/api/proofs/:id'), { params: proofIdParams, responses: { 200: proofResponse } }, async (req) => ({
  proof: await getProof(req.session!.userId, req.params.id),
}));
