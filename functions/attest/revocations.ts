import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { revocations, revocationsResponse } from '#lib/attest/attestations.ts';

/** GET /api/attest/revocations (public): the revocation list and its Merkle root. */
export const handler = endpoint(routeOf('GET', '/api/attest/revocations'), { responses: { 200: revocationsResponse } }, () => revocations());
