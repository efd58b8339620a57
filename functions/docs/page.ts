import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { binary } from '#lib/http/reply.ts';
import { PAGE_POLICY, pageResponse, referencePage } from '#lib/openapi/reference-page.ts';

/** The API reference page (Swagger UI over /api/openapi.json). */
export const handler = endpoint(routeOf('GET', '/api/docs'), { responses: { 200: pageResponse } }, () =>
  binary(referencePage(), { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PAGE_POLICY, 'cache-control': 'public, max-age=300' }),
);
