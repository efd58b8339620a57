import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { binary } from '#lib/http/reply.ts';
import { ASSETS, assetParams, assetResponse, referenceAsset } from '#lib/openapi/reference-page.ts';

/** The reference page's scripts and style sheet, from npm's swagger-ui-dist. */
export const handler = endpoint(routeOf('GET', '/api/docs/:asset'), { params: assetParams, responses: { 200: assetResponse } }, (req) =>
  binary(referenceAsset(req.params.asset), { 'content-type': ASSETS[req.params.asset], 'cache-control': 'public, max-age=3600' }),
);
