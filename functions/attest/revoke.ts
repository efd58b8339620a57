import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { attestationIdParams, revoke, revokeInput, revokeResponse } from '#lib/attest/attestations.ts';

/** POST /api/attest/:id/revoke {issuerSignature?}: by the subject (session) or the issuer (its signature). */
export const handler = endpoint(
  routeOf('POST', '/api/attest/:id/revoke'),
  { params: attestationIdParams, body: revokeInput, responses: { 200: revokeResponse } },
  (req) => revoke(req.session?.userId, req.params.id, req.body),
);
