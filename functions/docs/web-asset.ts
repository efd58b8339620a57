import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { binary } from '#lib/http/reply.ts';
import { assetResponse } from '#lib/openapi/reference-page.ts';
import { WEB_ASSETS, webAsset, webAssetParams } from '#lib/web/bundle.ts';

/** The browser terminal's script (bundled at the first request) and xterm.js's style sheet. */
export const handler = endpoint(routeOf('GET', '/web/:asset'), { params: webAssetParams, responses: { 200: assetResponse } }, async (req) =>
  binary(await webAsset(req.params.asset), { 'content-type': WEB_ASSETS[req.params.asset], 'cache-control': 'public, max-age=3600' }),
);
