import { routeOf, routes } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { describeEnvironment } from '#lib/init.ts';

export const handler = endpoint(routeOf('GET', '/api/init'), {}, (req) => describeEnvironment(req.session, routes));
