import * as z from 'zod';
import { routeOf } from '#functions/routes.ts';
import { readProof, readProofResponse } from '#lib/auth/identity-proof.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(
  routeOf('GET', '/api/chainb/proofs/:proofId'),
  { params: z.object({ proofId: z.uuid('must be a uuid') }), responses: { 200: readProofResponse } },
  (req) => readProof(req.params.proofId),
);
