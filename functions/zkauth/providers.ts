import { routeOf } from '#functions/routes.ts';
import { listProviders } from '#lib/auth/oauth/providers.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(routeOf('GET', '/api/zkauth/providers'), {}, () => ({ providers: listProviders() }));
