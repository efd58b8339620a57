import { createRequire } from 'node:module';
import { join } from 'node:path';
import { builtinAliases, patchedAliases } from './bundle-patches.ts';

const require = createRequire(join(import.meta.dirname, '..', 'package.json'));

/**
 * How a function is bundled, in one place: cdk/function-bundles.ts builds every function's bundle
 * with these settings, and the benchmarks bundle with the same to measure sizes and cold imports.
 */
export const bundling = {
  format: 'esm' as const,
  target: 'node22',
  platform: 'node' as const,
  minify: true,
  mainFields: ['module', 'main'],
  /**
   * Only ever imported on local paths (dynamic imports a Lambda never takes): esbuild builds the
   * browser terminal's script only where no prebuilt one lies beside the bundle (lib/web/bundle.ts).
   * The AWS SDK v3 is bundled, though the nodejs22.x runtime has a copy: its minified ESM parts
   * load in about half the CPU time of the runtime's packages (DynamoDB and its document client:
   * 65 against 123 ms here; test/bench/cold-assets.ts).
   */
  external: ['litesvm', '@solana/kit', '@lightprotocol/hasher.rs', 'ganache', 'esbuild'],
  /**
   * Packages replaced by a file of cdk/shims/ (each says why it is equivalent on nodejs22.x), by
   * another file of the same package, or by a copy of cdk/bundle-patches.ts (written on first read).
   */
  get alias(): Record<string, string> {
    return {
      'whatwg-url': join(import.meta.dirname, 'shims', 'whatwg-url.mjs'),
      // bigint-buffer's Node entry tries to load a native binding (never bundled, so never found
      // on Lambda), warns on stderr at every cold start and then uses the same pure JavaScript as
      // its browser entry, which is what it gets here.
      'bigint-buffer': require.resolve('bigint-buffer/dist/browser.js'),
      ...patchedAliases(),
      ...builtinAliases(),
    };
  },
  /** Where the patched copies' own bare imports resolve (they lie outside the repository). */
  nodePaths: [join(import.meta.dirname, '..', 'node_modules')],
  /** snarkjs and friends expect CommonJS globals in an ESM bundle. */
  banner:
    "import{createRequire as __cr}from'module';import{fileURLToPath as __fu}from'url';import{dirname as __dn}from'path';const require=__cr(import.meta.url);const __filename=__fu(import.meta.url);const __dirname=__dn(__filename);",
};

/** esbuild's options for one function, as cdk/function-bundles.ts bundles it (benchmarks use it). */
export const esbuildOptions = (entry: string, outfile: string) => ({
  entryPoints: [entry],
  bundle: true,
  outfile,
  format: bundling.format,
  platform: bundling.platform,
  target: bundling.target,
  minify: bundling.minify,
  sourcemap: false,
  mainFields: bundling.mainFields,
  external: bundling.external,
  alias: bundling.alias,
  nodePaths: bundling.nodePaths,
  banner: { js: bundling.banner },
  logLevel: 'silent' as const,
});
