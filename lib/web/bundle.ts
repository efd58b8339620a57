/**
 * The browser terminal's page and assets, and the share page's (`/share/<token>`, lib/web/share.ts):
 * each script bundled with esbuild at the first request of an instance (kept in memory), xterm.js's
 * style sheet from its npm package, the icon drawn by lib/web/favicon.ts. Node's
 * built-in modules, which the client reaches only on paths a browser never takes (artifacts read
 * from disk), are empty modules in the bundle;
 * Buffer is the npm `buffer` package. In a Lambda asset the scripts and the style sheet lie prebuilt
 * beside the bundle (cdk/function-bundles.ts): neither esbuild nor the packages it reads are there.
 */
import type { Plugin } from 'esbuild';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';

export const WEB_ASSETS = {
  'terminal.js': 'application/javascript; charset=utf-8',
  'share.js': 'application/javascript; charset=utf-8',
  'xterm.css': 'text/css; charset=utf-8',
} as const;
/** The bundled scripts and their entry points (in this directory). */
const SCRIPTS: Partial<Record<WebAsset, string>> = { 'terminal.js': 'terminal.ts', 'share.js': 'share.ts' };
export type WebAsset = keyof typeof WEB_ASSETS;
export const webAssetParams = z.object({ asset: z.enum(Object.keys(WEB_ASSETS) as [WebAsset, ...WebAsset[]], 'unknown asset') });

/** Scripts from this origin only; wasm compiled by snarkjs and workers from blob: URLs (ffjavascript's). */
export const WEB_POLICY =
  "default-src 'none'; script-src 'self' 'wasm-unsafe-eval' blob:; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self' blob:; font-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Where the pages find their scripts and style sheet: `/web/<name>` locally, content-hashed names on S3. */
export interface PageAssets {
  script: string;
  css: string;
  /** The share page's script. */
  share: string;
}
const LOCAL_ASSETS: PageAssets = { script: '/web/terminal.js', css: '/web/xterm.css', share: '/web/share.js' };
/** At the site's root: browsers ask for it there whatever the page says. */
export const FAVICON = '/favicon.ico';

const page = (a: PageAssets) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Shroud</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="${FAVICON}">
<link rel="stylesheet" href="${a.css}">
<style>html,body{margin:0;height:100%;overflow:hidden;background:#0b0f14}#terminal{position:absolute;inset:8px}#file-input{display:none}</style>
</head>
<body>
<div id="terminal"></div>
<input type="file" id="file-input" multiple>
<script type="module" src="${a.script}"></script>
</body>
</html>
`;
export const webPage = (assets: PageAssets = LOCAL_ASSETS) => Buffer.from(page(assets));

/**
 * `/share/<token>`: the same page for every token (the script reads it from the address), so that
 * S3 can serve it as one file behind CloudFront (cdk/constructs/web-hosting.ts).
 */
const sharePageHtml = (a: PageAssets) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>A file shared with you · Shroud</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="${FAVICON}">
<style>
html,body{margin:0;min-height:100%;background:#0b0f14;color:#d8dee9;font:16px/1.5 system-ui,sans-serif}
main{max-width:34rem;margin:10vh auto;padding:2rem;border:1px solid #2b3440;border-radius:10px;background:#111821}
h1{margin:0 0 .5rem;font-size:1.4rem}h1 span{color:#3fb950;font-family:monospace}
p{margin:.5rem 0}.lead{color:#9aa5b1}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:1.25rem 0}dt{color:#7fb4d9}dd{margin:0;overflow-wrap:anywhere;font-family:monospace}
label{display:block;margin:1rem 0 .25rem}
input{box-sizing:border-box;width:100%;padding:.55rem .7rem;border:1px solid #2b3440;border-radius:6px;background:#0b0f14;color:inherit;font:inherit}
button{margin-top:1rem;padding:.55rem 1.2rem;border:0;border-radius:6px;background:#3fb950;color:#0b0f14;font:inherit;font-weight:600;cursor:pointer}
button:disabled{opacity:.5;cursor:progress}
#status{color:#9aa5b1;font-family:monospace}#problem{color:#f47067}
[hidden]{display:none!important}
</style>
</head>
<body>
<main>
<h1><span>&gt;_</span> A file shared with you</h1>
<p class="lead">It is end-to-end encrypted. Enter the file password the person who shared it gave you: the password is proved and the file decrypted here, in this page; neither the password nor the file leaves it unencrypted.</p>
<section id="file" hidden>
<dl><dt>file</dt><dd id="file-name"></dd><dt>size</dt><dd id="file-size"></dd><dt>link expires</dt><dd id="file-expires"></dd></dl>
<form id="receive">
<label for="password">file password</label>
<input type="password" id="password" autocomplete="off" required>
<button type="submit" id="save">Decrypt and save</button>
</form>
</section>
<p id="status" role="status" data-state="loading">opening the link…</p>
<p id="problem" role="alert" hidden></p>
</main>
<script type="module" src="${a.share}"></script>
</body>
</html>
`;
export const sharePage = (assets: PageAssets = LOCAL_ASSETS) => Buffer.from(sharePageHtml(assets));

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

async function bundle(entry: string): Promise<Buffer> {
  const { build } = await import('esbuild');
  const out = await build({
    entryPoints: [join(here, entry)],
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
    // In a Lambda asset the files lie prebuilt beside the bundle (cdk/function-bundles.ts).
    const prebuilt = join(here, name);
    const entry = SCRIPTS[name];
    found = existsSync(prebuilt)
      ? Promise.resolve(readFileSync(prebuilt))
      : entry
        ? bundle(entry)
        : Promise.resolve(readFileSync(createRequire(import.meta.url).resolve('@xterm/xterm/css/xterm.css')));
    found.catch(() => cache.delete(name));
    cache.set(name, found);
  }
  return found;
}
