import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { binary } from '#lib/http/reply.ts';
import { pageResponse } from '#lib/openapi/reference-page.ts';
import { WEB_POLICY, webPage } from '#lib/web/bundle.ts';

/** The terminal in the browser (xterm.js over the shared command definitions). */
export const handler = endpoint(routeOf('GET', '/'), { responses: { 200: pageResponse } }, () =>
  binary(webPage(), { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': WEB_POLICY, 'cache-control': 'public, max-age=300' }),
);
