import { routeOf } from '#functions/routes.ts';
import { clientProofBody, prove, proveResponse } from '#lib/auth/stark-session/index.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { SESSION_COOKIE } from '#lib/http/cookies.ts';

// Optional body {stark_proof, keyHash}: the client's own proof; without it the cookie unlocks the
// session's server-held key (see lib/auth/stark-session/keys.ts).
export const handler = endpoint(routeOf('POST', '/api/zkauth/prove'), { body: clientProofBody, responses: { 200: proveResponse } }, (req) =>
  prove(req.cookies[SESSION_COOKIE]!, req.session!, req.body),
);
