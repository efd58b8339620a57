import { routeOf } from '#functions/routes.ts';
import { submitIdentityProof, submitProofInput } from '#lib/auth/identity-proof.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(routeOf('POST', '/api/chainb/submit-proof'), { body: submitProofInput }, (req) =>
  submitIdentityProof(req.body),
);
