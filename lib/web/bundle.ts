/**
 * The browser terminal's page and assets: lib/web/terminal.ts bundled with esbuild at the first
 * request of an instance (kept in memory), xterm.js's style sheet from its npm package. Node's
 * built-in modules, which the client reaches only on paths a browser never takes (artifacts read
 * from disk), are empty modules in the bundle;
 * Buffer is the npm `buffer` package. In a Lambda asset both files lie prebuilt beside the bundle
 * (cdk/function-bundles.ts): neither esbuild nor the packages it reads are there.
 */
import type { Plugin } from 'esbuild';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';

export const WEB_ASSETS = {
  'terminal.js': 'application/javascript; charset=utf-8',
  'xterm.css': 'text/css; charset=utf-8',
} as const;
export type WebAsset = keyof typeof WEB_ASSETS;
export const webAssetParams = z.object({ asset: z.enum(Object.keys(WEB_ASSETS) as [WebAsset, ...WebAsset[]], 'unknown asset') });

/** Scripts from this origin only; wasm compiled by snarkjs and workers from blob: URLs (ffjavascript's). */
export const WEB_POLICY =
  "default-src 'none'; script-src 'self' 'wasm-unsafe-eval' blob:; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self' blob:; font-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Where the page finds its script and style sheet: `/web/<name>` locally, content-hashed names on S3. */
export interface PageAssets {
  script: string;
  css: string;
}
const LOCAL_ASSETS: PageAssets = { script: '/web/terminal.js', css: '/web/xterm.css' };

const page = (a: PageAssets) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Shroud</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${a.css}">
<style>html,body{margin:0;height:100%;background:#0b0f14}#terminal{height:100vh;padding:8px;box-sizing:border-box}#file-input{display:none}</style>
</head>
<body>
<div id="terminal"></div>
<input type="file" id="file-input" multiple>
<script type="module" src="${a.script}"></script>
</body>
</html>
`;
export const webPage = (assets: PageAssets = LOCAL_ASSETS) => Buffer.from(page(assets));

const here = dirname(fileURLToPath(import.meta.url));
const builtins = new RegExp(`^(node:)?(${builtinModules.map((m) => m.replace(/[/]/g, '\\/')).join('|')})$`);
const emptyBuiltins: Plugin = {
  name: 'empty-node-builtins',
  setup(b) {
    const bufferPackage = createRequire(import.meta.url).resolve('buffer/index.js');
    b.onResolve({ filter: builtins }, (a) => (a.path.replace(/^node:/, '') === 'buffer' ? { path: bufferPackage } : { path: a.path, namespace: 'empty' }));
    b.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
  },
};

async function bundle(): Promise<Buffer> {
  const { build } = await import('esbuild');
  const out = await build({
    entryPoints: [join(here, 'terminal.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'silent',
    define: { 'process.env.NODE_DEBUG': 'false', global: 'globalThis' },
    inject: [join(here, 'buffer-shim.ts')],
    plugins: [emptyBuiltins],
  });
  return Buffer.from(out.outputFiles[0]!.contents);
}

const cache = new Map<WebAsset, Promise<Buffer>>();
export function webAsset(name: WebAsset): Promise<Buffer> {
  let found = cache.get(name);
  if (!found) {
    const prebuilt = join(here, name);
    found = existsSync(prebuilt)
      ? Promise.resolve(readFileSync(prebuilt))
      : name === 'terminal.js'
        ? bundle()
        : Promise.resolve(readFileSync(createRequire(import.meta.url).resolve('@xterm/xterm/css/xterm.css')));
    found.catch(() => cache.delete(name));
    cache.set(name, found);
  }
  return found;
}
