import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { verifyAttestation, verifyInput, verifyResponse } from '#lib/attest/attestations.ts';

/** POST /api/attest/verify (public) {attestation} → {valid, revoked, expired, reasons}. */
export const handler = endpoint(routeOf('POST', '/api/attest/verify'), { body: verifyInput, responses: { 200: verifyResponse } }, (req) =>
  verifyAttestation(req.body.attestation),
);
