import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { issuer, issuerResponse } from '#lib/attest/attestations.ts';

/** GET /api/attest/issuer (public): the issuer's EdDSA public key and what it signs. */
export const handler = endpoint(routeOf('GET', '/api/attest/issuer'), { responses: { 200: issuerResponse } }, () => issuer());
