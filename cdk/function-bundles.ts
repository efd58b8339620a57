/**
 * Every function's bundle from one esbuild run (cdk/bundling.ts's settings) with code splitting:
 * NodejsFunction ran esbuild once per function, 147 processes that each parsed the same dependency
 * tree again, and one run without splitting still minified and printed each shared module once
 * per function (213 MB of output, 58–188 s of a synth); split, each module is printed once
 * (151 entries and their chunks, 7 MB, 5–17 s). An entry's output imports the chunks it needs
 * (`./chunk-<hash>.mjs`, all in one flat directory, as in the asset, so that `import.meta.url`
 * still names the directory of the files a module reads beside it); what it reaches only through
 * `await import()` is a chunk that a cold start does not read. Assets: one per route group
 * (functionCode), hashed by their output. Source maps only with `-c sourceMaps=true` (they were
 * 85 % of the assembly).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
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
  /** entry (repo-relative) → its output file in `dir` and the chunk files it loads, directly or in turn (dynamic imports included). */
  outputs: Map<string, { file: string; chunks: string[] }>;
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

/** An entry's output name: flat, so that every entry and chunk lies in one directory, as in the asset. */
const keyOf = (entry: string) => entry.replace(/\.[cm]?[jt]s$/, '').replaceAll('/', '--');

function build(entries: string[], sourcemap: boolean): Build {
  const dir = temporaryDir('shroud-bundles-');
  const started = performance.now();
  // Code splitting: each module is parsed, minified and printed once for all functions (not once
  // per function that bundles it), and what a function reaches only through `await import()`
  // (lib/'s heavy libraries behind first use) is a chunk of its own that a cold start never reads.
  const { metafile } = buildSync({
    absWorkingDir: repoRoot,
    entryPoints: entries.map((e) => ({ in: join(repoRoot, e), out: keyOf(e) })),
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunk-[hash]',
    splitting: true,
    metafile: true,
    bundle: true,
    format: bundling.format,
    platform: bundling.platform,
    target: bundling.target,
    minify: bundling.minify,
    sourcemap,
    mainFields: bundling.mainFields,
    external: bundling.external,
    alias: bundling.alias,
    nodePaths: bundling.nodePaths,
    banner: { js: bundling.banner },
    logLevel: 'warning',
  });
  const imports = new Map(
    Object.entries(metafile.outputs).map(([out, o]) => [join(repoRoot, out), o.imports.filter((i) => !i.external).map((i) => join(repoRoot, i.path))]),
  );
  const chunksOf = (file: string): string[] => {
    const seen = new Set<string>();
    const visit = (f: string) => {
      for (const i of imports.get(f) ?? []) {
        if (seen.has(i)) continue;
        seen.add(i);
        visit(i);
      }
    };
    visit(file);
    return [...seen].map((f) => relative(dir, f)).sort();
  };
  process.stderr.write(
    `bundled ${entries.length} functions in ${((performance.now() - started) / 1000).toFixed(1)} s${sourcemap ? ' (with source maps)' : ''}\n`,
  );
  const outputs = new Map(
    entries.map((e) => {
      const file = join(dir, `${keyOf(e)}.mjs`);
      return [e, { file, chunks: chunksOf(file) }];
    }),
  );
  const b: Build = { dir, sourcemap, outputs };
  builds.push(b);
  return b;
}

/** `entry`'s bundle: the first call builds every known entry at once, a later unknown entry alone. */
function bundleOf(entry: string, sourcemap: boolean, alone: boolean): { dir: string; file: string; chunks: string[] } {
  const found = builds.find((b) => b.sourcemap === sourcemap && b.outputs.has(entry));
  if (found) return { dir: found.dir, ...found.outputs.get(entry)! };
  const entries = alone || builds.some((b) => b.sourcemap === sourcemap) ? [entry] : [...new Set([...knownEntries(), entry])];
  const b = build(entries, sourcemap);
  return { dir: b.dir, ...b.outputs.get(entry)! };
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

/** The directory of a known entry's group asset (`functions/swap`), or undefined for an entry outside the route and job tables. */
const groupOf = (entry: string): string | undefined => (knownEntries().includes(entry) ? dirname(entry) : undefined);
/** The module name of `entry` in its asset: its file name in a group asset (`quote`), `index` alone. */
const moduleName = (entry: string) => (groupOf(entry) ? basename(entry).replace(/\.[cm]?[jt]s$/, '') : 'index');

/**
 * The Lambda code of the function whose handler module is `entry` (repo-relative), and the
 * module its `Handler` names. A function of the route or job tables gets its group's asset: every
 * entry of its directory (`functions/swap/quote.mjs`, `execute.mjs`, …) beside the chunks any of
 * them loads, so a group's functions share one asset where each shipped its own copy of the same
 * chunks (cdk.out 309 → 100 MB or so); each function still imports only its own module and the
 * chunks it reaches. Another entry (a test's) gets an asset of its own (`index.mjs`). Bundled
 * locally, never in Docker.
 */
export function functionCode(scope: Construct, entry: string): { code: Code; module: string } {
  const sourcemap = sourceMapsWanted(scope);
  const rel = relative(repoRoot, join(repoRoot, entry));
  const group = groupOf(rel);
  const code = Code.fromAsset(join(repoRoot, 'functions'), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: DockerImage.fromRegistry('unused-local-bundling-only'),
      // Part of the staging cache key: one asset per group (or entry) and map setting (tryBundle is not).
      environment: group ? { GROUP: group, SOURCE_MAPS: String(sourcemap) } : { ENTRY: rel, SOURCE_MAPS: String(sourcemap) },
      local: {
        tryBundle(outputDir) {
          if (group) writeGroupAsset(group, outputDir, { sourcemap });
          else writeFunctionAsset(rel, outputDir, { sourcemap });
          return true;
        },
      },
    },
  });
  return { code, module: moduleName(rel) };
}

/** One entry's output as `name.mjs` in `outputDir` (its map renamed with it), and the chunks it loads beside it. */
function writeEntry(entry: string, name: string, outputDir: string, sourcemap: boolean, alone: boolean): void {
  const { dir, file, chunks } = bundleOf(entry, sourcemap, alone);
  for (const c of chunks) {
    if (existsSync(join(outputDir, c))) continue; // another entry of the group loads it too
    copyFileSync(join(dir, c), join(outputDir, c));
    if (sourcemap) copyFileSync(join(dir, `${c}.map`), join(outputDir, `${c}.map`));
  }
  if (!sourcemap) copyFileSync(file, join(outputDir, `${name}.mjs`));
  else {
    // The bundle names its map after the entry's output; here it is `name.mjs`'s.
    writeFileSync(
      join(outputDir, `${name}.mjs`),
      readFileSync(file, 'utf8').replace(/\/\/# sourceMappingURL=[^\n]*\s*$/, `//# sourceMappingURL=${name}.mjs.map\n`),
    );
    copyFileSync(`${file}.map`, join(outputDir, `${name}.mjs.map`));
  }
  EXTRA_FILES[entry]?.(outputDir);
}

/** A group's asset (`group` a directory of functions/): each known entry there as `<file name>.mjs`, the chunks they load, the files they read. */
export function writeGroupAsset(group: string, outputDir: string, opts: { sourcemap?: boolean } = {}): void {
  for (const entry of knownEntries().filter((e) => dirname(e) === group)) writeEntry(entry, moduleName(entry), outputDir, opts.sourcemap ?? false, false);
}

/**
 * What a function's asset of its own holds (`entry` repo-relative): its bundle as `index.mjs`, the
 * chunks it loads, its map when asked, the files it reads beside it. `alone`: bundle only this
 * entry (tests), not every known one.
 */
export function writeFunctionAsset(entry: string, outputDir: string, opts: { sourcemap?: boolean; alone?: boolean } = {}): void {
  writeEntry(entry, 'index', outputDir, opts.sourcemap ?? false, opts.alone ?? false);
}
