import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { attestationIdParams, getMine, getResponse } from '#lib/attest/attestations.ts';

/** GET /api/attest/:id: one of the caller's attestations (another's: 404). */
export const handler = endpoint(routeOf('GET', '/api/attest/:id'), { params: attestationIdParams, responses: { 200: getResponse } }, (req) =>
  getMine(req.session!.userId, req.params.id),
);
