/**
 * How a function is bundled, in one place: the CDK construct passes it to NodejsFunction's esbuild
 * and the benchmark bundles with the same settings to measure sizes and cold imports.
 */
export const bundling = {
  format: 'esm' as const,
  target: 'node22',
  platform: 'node' as const,
  minify: true,
  sourcemap: true,
  mainFields: ['module', 'main'],
  /** The AWS SDK v3 is part of the nodejs22.x runtime. */
  external: ['@aws-sdk/*', 'litesvm', '@solana/kit', '@lightprotocol/hasher.rs', 'ganache'],
  /** snarkjs and friends expect CommonJS globals in an ESM bundle. */
  banner:
    "import{createRequire as __cr}from'module';import{fileURLToPath as __fu}from'url';import{dirname as __dn}from'path';const require=__cr(import.meta.url);const __filename=__fu(import.meta.url);const __dirname=__dn(__filename);",
};

/** esbuild's options for one function, as NodejsFunction would bundle it (benchmarks use it). */
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
  banner: { js: bundling.banner },
  logLevel: 'silent' as const,
});
