import { routeOf } from '#functions/routes.ts';
import { prove } from '#lib/auth/stark-session/index.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { SESSION_COOKIE } from '#lib/http/cookies.ts';

// The cookie itself unlocks the session's STARK key (see lib/auth/stark-session/keys.ts).
export const handler = endpoint(routeOf('POST', '/api/zkauth/prove'), {}, (req) => prove(req.cookies[SESSION_COOKIE]!, req.session!));
