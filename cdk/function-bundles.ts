/**
 * Every function's bundle from one esbuild run (cdk/bundling.ts's settings): NodejsFunction ran
 * esbuild once per function, 147 processes that each parsed the same dependency tree again
 * (99–160 s of a synth). Here the first asset that needs its bundle builds them all (every handler
 * of the route table, the fallback, the scheduled jobs), each a self-contained `index.mjs` as
 * before; each function's asset then copies its own. Assets are hashed by their output, so a
 * function whose bundle is identical to another's (a streaming route's second function) shares
 * that one asset. Source maps only with `-c sourceMaps=true` (they were 85 % of the assembly).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import { buildSync } from 'esbuild';
import type { Construct } from 'constructs';
import { jobs } from '../functions/jobs.ts';
import { routes } from '../functions/routes.ts';
import { bundling } from './bundling.ts';

export const repoRoot = join(import.meta.dirname, '..');

/** `-c sourceMaps=true`: ship `index.mjs.map` and turn on `--enable-source-maps` (cdk/constructs/api-function.ts). */
export const sourceMapsWanted = (scope: Construct): boolean => String(scope.node.tryGetContext('sourceMaps') ?? 'false') === 'true';

/** The entries a synth of cdk/stack.ts bundles: known before the first asset asks, so one run builds them all. */
function knownEntries(): string[] {
  return [...new Set([...routes.map((r) => r.handler), 'functions/fallback.ts', ...jobs.map((j) => j.handler)])];
}

interface Build {
  dir: string;
  sourcemap: boolean;
  /** entry (repo-relative) → its output file in `dir`. */
  outputs: Map<string, string>;
}
const builds: Build[] = [];
let site: string | undefined;
/** Temporary directories of this process (bundles, the site), removed at its exit. */
const temporary: string[] = [];
/** Removes this process's bundles and site builds (a test worker may end without an `exit` event). */
export function removeTemporaryBuilds(): void {
  for (const d of temporary.splice(0)) rmSync(d, { recursive: true, force: true });
  builds.length = 0;
  site = undefined;
}
const temporaryDir = (prefix: string) => {
  if (!temporary.length) process.once('exit', removeTemporaryBuilds);
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temporary.push(dir);
  return dir;
};

const keyOf = (entry: string) => entry.replace(/\.[cm]?[jt]s$/, '');

function build(entries: string[], sourcemap: boolean): Build {
  const dir = temporaryDir('shroud-bundles-');
  const started = performance.now();
  buildSync({
    absWorkingDir: repoRoot,
    entryPoints: entries.map((e) => ({ in: join(repoRoot, e), out: keyOf(e) })),
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: bundling.format,
    platform: bundling.platform,
    target: bundling.target,
    minify: bundling.minify,
    sourcemap,
    mainFields: bundling.mainFields,
    external: bundling.external,
    banner: { js: bundling.banner },
    logLevel: 'warning',
  });
  process.stderr.write(
    `bundled ${entries.length} functions in ${((performance.now() - started) / 1000).toFixed(1)} s${sourcemap ? ' (with source maps)' : ''}\n`,
  );
  const b: Build = { dir, sourcemap, outputs: new Map(entries.map((e) => [e, join(dir, `${keyOf(e)}.mjs`)])) };
  builds.push(b);
  return b;
}

/** `entry`'s bundle: the first call builds every known entry at once, a later unknown entry alone. */
function bundleOf(entry: string, sourcemap: boolean, alone: boolean): string {
  const found = builds.find((b) => b.sourcemap === sourcemap && b.outputs.has(entry));
  if (found) return found.outputs.get(entry)!;
  const entries = alone || builds.some((b) => b.sourcemap === sourcemap) ? [entry] : [...new Set([...knownEntries(), entry])];
  return build(entries, sourcemap).outputs.get(entry)!;
}

/** Files some functions read beside their bundle, by entry. */
const EXTRA_FILES: Record<string, (outputDir: string) => void> = {
  // The API reference page serves Swagger UI's files from its own directory (lib/openapi/reference-page.ts).
  'functions/docs/asset.ts': (out) => {
    for (const f of ['swagger-ui-bundle.js', 'swagger-ui.css']) copyFileSync(join(repoRoot, 'node_modules', 'swagger-ui-dist', f), join(out, f));
  },
  // The browser terminal's script and style sheet, built at synth (lib/web/bundle.ts serves them from its directory).
  'functions/docs/web-asset.ts': (out) => {
    const site = builtSite();
    for (const f of readdirSync(join(site, 'web'))) copyFileSync(join(site, 'web', f), join(out, f.replace(/\.[0-9a-f]{16}\./, '.')));
  },
};

/** The browser terminal's static site (cdk/build-web-site.ts), built once per synth. */
export function builtSite(): string {
  if (site && existsSync(site)) return site;
  const dir = temporaryDir('shroud-web-site-');
  const out = spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'cdk', 'build-web-site.ts'), dir], {
    cwd: repoRoot,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (out.status !== 0) throw new Error(`building the browser terminal's site failed (${out.error?.message ?? `exit ${out.status}`})`);
  return (site = dir);
}

/** A directory's files copied into another (the site's files into an asset). */
export function copyTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const e of readdirSync(from, { withFileTypes: true })) {
    if (e.isDirectory()) copyTree(join(from, e.name), join(to, e.name));
    else copyFileSync(join(from, e.name), join(to, e.name));
  }
}

/**
 * The Lambda code of the function whose handler module is `entry` (repo-relative): `index.mjs`
 * (and its map when asked) plus the files it reads beside it. Bundled locally, never in Docker.
 */
export function functionCode(scope: Construct, entry: string): Code {
  const sourcemap = sourceMapsWanted(scope);
  const rel = relative(repoRoot, join(repoRoot, entry));
  return Code.fromAsset(join(repoRoot, 'functions'), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: DockerImage.fromRegistry('unused-local-bundling-only'),
      // Part of the staging cache key: one asset per entry and map setting (tryBundle is not).
      environment: { ENTRY: rel, SOURCE_MAPS: String(sourcemap) },
      local: {
        tryBundle(outputDir) {
          writeFunctionAsset(rel, outputDir, { sourcemap });
          return true;
        },
      },
    },
  });
}

/**
 * What a function's asset holds (`entry` repo-relative): its bundle as `index.mjs`, its map when
 * asked, the files it reads beside it. `alone`: bundle only this entry (tests), not every known one.
 */
export function writeFunctionAsset(entry: string, outputDir: string, opts: { sourcemap?: boolean; alone?: boolean } = {}): void {
  const sourcemap = opts.sourcemap ?? false;
  const file = bundleOf(entry, sourcemap, opts.alone ?? false);
  if (!sourcemap) copyFileSync(file, join(outputDir, 'index.mjs'));
  else {
    // The bundle names its map after the entry; here it is index.mjs's.
    writeFileSync(
      join(outputDir, 'index.mjs'),
      readFileSync(file, 'utf8').replace(/\/\/# sourceMappingURL=[^\n]*\s*$/, '//# sourceMappingURL=index.mjs.map\n'),
    );
    copyFileSync(`${file}.map`, join(outputDir, 'index.mjs.map'));
  }
  EXTRA_FILES[entry]?.(outputDir);
}
