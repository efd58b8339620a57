/**
 * `tsx cdk/build-web-site.ts <dir>`: writes the browser terminal's static files (lib/web/site.ts,
 * the same esbuild bundle the local runtime serves) into <dir>. The web hosting construct runs it
 * at synth time as its asset's local bundling step; it reports what it built on stderr.
 */
import { writeStaticSite } from '../lib/web/site.ts';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: tsx cdk/build-web-site.ts <output dir>');
  process.exit(2);
}
const started = performance.now();
const files = await writeStaticSite(dir);
const seconds = ((performance.now() - started) / 1000).toFixed(2);
console.error(`web site: built in ${seconds} s: ${files.map((f) => `${f.path} ${(f.bytes.length / 1024).toFixed(1)} KiB`).join(', ')}`);
