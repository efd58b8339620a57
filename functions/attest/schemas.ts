import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { listSchemas, schemasResponse } from '#lib/attest/attestations.ts';

/** GET /api/attest/schemas (public): each schema's circuit, verification key hash and who fixes each public signal. */
export const handler = endpoint(routeOf('GET', '/api/attest/schemas'), { responses: { 200: schemasResponse } }, () => listSchemas());
