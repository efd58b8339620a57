/**
 * The browser terminal as static files, for S3 behind CloudFront (cdk/web-hosting.ts): the same
 * page and assets the local runtime serves (lib/web/bundle.ts builds them, one build definition),
 * with content-hashed asset names under `web/` so they can be cached for a year, and `index.html`
 * (never cached) pointing at them.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FAVICON, WEB_ASSETS, sharePage, webAsset, webPage, type WebAsset } from './bundle.ts';
import { favicon } from './favicon.ts';

/** The file the distribution serves at `/`. */
export const INDEX = 'index.html';
/** The file the distribution serves at every `/share/<token>` (a viewer-request function rewrites the path). */
export const SHARE_PAGE = 'share.html';
/** The pages (never cached, invalidated at each deploy) and the icon (`favicon.ico`, at the root). */
export const PAGES = [INDEX, SHARE_PAGE, FAVICON.slice(1)];
/** Where the content-hashed assets live in the bucket (and under the distribution). */
export const ASSET_PREFIX = 'web/';

export interface SiteFile {
  /** Key in the bucket, without a leading slash. */
  path: string;
  bytes: Buffer;
  contentType: string;
}

/** `terminal.js` → `web/terminal.<first 16 hex of SHA-256>.js`. */
export function hashedName(name: WebAsset, bytes: Buffer): string {
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const dot = name.lastIndexOf('.');
  return `${ASSET_PREFIX}${name.slice(0, dot)}.${hash}${name.slice(dot)}`;
}

/** Every file of the site: the bundles and style sheet under their hashed names, the pages and the icon. */
export async function staticSite(): Promise<SiteFile[]> {
  const names = Object.keys(WEB_ASSETS) as WebAsset[];
  const assets = await Promise.all(names.map(async (name) => ({ name, bytes: await webAsset(name) })));
  const files: SiteFile[] = assets.map(({ name, bytes }) => ({ path: hashedName(name, bytes), bytes, contentType: WEB_ASSETS[name] }));
  const at = (name: WebAsset) => `/${files[names.indexOf(name)]!.path}`;
  const hashed = { script: at('terminal.js'), css: at('xterm.css'), share: at('share.js') };
  files.push({ path: INDEX, bytes: webPage(hashed), contentType: 'text/html; charset=utf-8' });
  files.push({ path: SHARE_PAGE, bytes: sharePage(hashed), contentType: 'text/html; charset=utf-8' });
  files.push({ path: FAVICON.slice(1), bytes: favicon(), contentType: 'image/x-icon' });
  return files;
}

/** Writes the site into `dir` (made if missing); returns what it wrote. */
export async function writeStaticSite(dir: string): Promise<SiteFile[]> {
  const files = await staticSite();
  for (const f of files) {
    mkdirSync(dirname(join(dir, f.path)), { recursive: true });
    writeFileSync(join(dir, f.path), f.bytes);
  }
  return files;
}
