import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import { errors } from '#lib/errors.ts';
import { bytesResponse } from './responses.ts';

/**
 * The API reference page at `/api/docs`: Swagger UI (npm `swagger-ui-dist`, served by us, no
 * CDN) reading `/api/openapi.json`. Its assets are the package's own files, read once per instance.
 */
export const ASSETS = {
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'init.js': 'application/javascript; charset=utf-8',
} as const;
export type AssetName = keyof typeof ASSETS;
export const assetParams = z.object({ asset: z.enum(Object.keys(ASSETS) as [AssetName, ...AssetName[]], 'unknown asset') });

/** The page's own policy: its scripts and styles from this origin only (Swagger UI sets inline styles), nothing else. */
export const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Shroud API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/api/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script>
</body>
</html>
`;

// An external script (the policy allows no inline one).
const INIT = `window.ui = SwaggerUIBundle({
  url: '/api/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  withCredentials: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

const cache = new Map<AssetName, Buffer>();
/** Beside the Lambda bundle (copied there by the CDK construct), else the npm package. */
function packageDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  if (existsSync(join(here, 'swagger-ui-bundle.js'))) return here;
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

export const referencePage = () => Buffer.from(PAGE);

export function referenceAsset(name: AssetName): Buffer {
  let bytes = cache.get(name);
  if (!bytes) {
    if (!(name in ASSETS)) throw errors.notFound();
    bytes = name === 'init.js' ? Buffer.from(INIT) : readFileSync(join(packageDir(), name));
    cache.set(name, bytes);
  }
  return bytes;
}

export const pageResponse = bytesResponse('text/html', 'The reference page (Swagger UI over /api/openapi.json).');
export const assetResponse = bytesResponse('application/javascript', 'A script or style sheet of the reference page.');
