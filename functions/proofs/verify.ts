import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { proofIdParams, proofVerifyResponse, reverify } from '#lib/proofs/routes.ts';

/** POST /api/proofs/:id/verify: the recorded proof checked again against the pinned key → {valid, verifiedAt}. */
export const handler = endpoint(routeOf('POST', '/api/proofs/:id/verify'), { params: proofIdParams, responses: { 200: proofVerifyResponse } }, (req) =>
  reverify(req.session!.userId, req.params.id),
);
