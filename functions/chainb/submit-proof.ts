import { routeOf } from '#functions/routes.ts';
import { submitIdentityProof, submitProofInput, submitProofResponse } from '#lib/auth/identity-proof.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(routeOf('POST', '/api/chainb/submit-proof'), { body: submitProofInput, responses: { 200: submitProofResponse } }, (req) =>
  submitIdentityProof(req.body),
);
