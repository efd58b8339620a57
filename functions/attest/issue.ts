import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';
import { issue, issueInput, issueResponse } from '#lib/attest/attestations.ts';

/**
 * POST /api/attest {schema, proof, publicSignals, scope?, group?, anchor?} → 201 {attestation};
 * 400 SCHEMA_MISMATCH (a schema-bound signal differs), 401 INVALID_PROOF, 409 ALREADY_ATTESTED.
 */
export const handler = endpoint(routeOf('POST', '/api/attest'), { body: issueInput, responses: { 201: issueResponse } }, async (req) =>
  reply(201, await issue(req.session!.userId, req.body)),
);
