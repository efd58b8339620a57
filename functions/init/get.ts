import { routeOf, routes } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { describeEnvironment, environmentResponse } from '#lib/init.ts';

export const handler = endpoint(routeOf('GET', '/api/init'), { responses: { 200: environmentResponse } }, (req) => describeEnvironment(req.session, routes));
