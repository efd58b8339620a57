import { routeOf } from '#functions/routes.ts';
import { listProviders } from '#lib/auth/oauth/providers.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { providersResponse } from '#lib/auth/oauth/responses.ts';

export const handler = endpoint(routeOf('GET', '/api/zkauth/providers'), { responses: { 200: providersResponse } }, () => ({ providers: listProviders() }));
