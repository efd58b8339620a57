import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Package files bundled with a few statements changed, each to drop work a package does at import
 * that no function needs (cdk/bundling.ts points the package at the copy with esbuild's alias;
 * buildSync takes no plugins). Each edit must match exactly once, so an upgrade that moves the
 * text fails the build instead of shipping the work again. Pinned by test/unit/cdk/bundle-patches.test.ts.
 */
interface Patch {
  /** The import specifier esbuild resolves (and the alias replaces). */
  specifier: string;
  edits: { find: RegExp; replace: (...groups: string[]) => string }[];
}

const TEST_KEYS = ['ALICE', 'BOB', 'CHARLIE', 'DAVE'];

const PATCHES: Patch[] = [
  {
    // stateless.js 0.23.3 makes four test key pairs at import (`ALICE…DAVE = getTestKeypair(255…252)`):
    // each an ed25519 public key, the first of which builds @noble/curves' base-point table, about a
    // third of a chain A function's cold import. Nothing in lib/ reads them; they become getters
    // that make the same key pair on first read.
    specifier: '@lightprotocol/stateless.js',
    edits: [
      {
        find: /const ([\w$]+)=([\w$]+)\(255\),([\w$]+)=\2\(254\),([\w$]+)=\2\(253\),([\w$]+)=\2\(252\);/,
        replace: (_all, a, make, b, c, d) => `let ${a},${b},${c},${d};const __testKey=(n)=>${make}(n);`,
      },
      ...TEST_KEYS.map((name, i) => ({
        find: new RegExp(`exports\\.${name}=([\\w$]+),`),
        replace: (_all: string, v: string) =>
          `Object.defineProperty(exports,"${name}",{enumerable:!0,configurable:!0,get:()=>${v}??(${v}=__testKey(${255 - i}))}),`,
      })),
    ],
  },
];

/** The package.json of the package `name` that holds `file` (its `exports` may not list it). */
function packageJsonOf(file: string, name: string): { sideEffects?: unknown } {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate) && (JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string }).name === name)
      return JSON.parse(readFileSync(candidate, 'utf8'));
  }
  throw new Error(`cdk/bundle-patches.ts: no package.json of ${name} above ${file}`);
}

const require = createRequire(join(import.meta.dirname, '..', 'package.json'));
let written: { dir: string; alias: Record<string, string> } | undefined;
let scratch: string | undefined;
/** This process's directory of written copies and shims (removed at exit). */
function scratchDir(): string {
  if (scratch) return scratch;
  const dir = mkdtempSync(join(tmpdir(), 'shroud-bundle-patches-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return (scratch = dir);
}

let builtins: Record<string, string> | undefined;
/**
 * Every Node built-in (`http` and `node:http` alike) as a CommonJS module whose exports are the
 * built-in's own object. An ES `import` of a built-in left in the bundle makes Node build a module
 * namespace for it, reading every export, and node:http's lazy `WebSocket`/`EventSource` getters
 * then load undici (4–11 ms of a function's import CPU, measured side by side; `util`, `fs`,
 * `process` and the rest a little each). Through this shim esbuild reads the exports a module uses, when it uses them, as it
 * already did for the CommonJS packages' `require()`; a `require()` gets the same object as before.
 */
export function builtinAliases(): Record<string, string> {
  if (builtins) return builtins;
  const dir = join(scratchDir(), 'builtins');
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ sideEffects: false }));
  const alias: Record<string, string> = {};
  for (const name of builtinModules.filter((m) => !m.startsWith('_'))) {
    const file = join(dir, `${name.replaceAll('/', '--')}.cjs`);
    writeFileSync(file, `module.exports = process.getBuiltinModule(${JSON.stringify(`node:${name}`)});\n`);
    alias[name] = alias[`node:${name}`] = file;
  }
  return (builtins = alias);
}

/**
 * The alias entries for the patched copies, written once per process to a temporary directory
 * (removed at exit). The copies' own bare imports resolve through esbuild's `nodePaths`
 * (cdk/bundling.ts), as the originals' did from the repository's node_modules.
 */
export function patchedAliases(): Record<string, string> {
  if (written) return written.alias;
  const dir = scratchDir();
  const alias: Record<string, string> = {};
  for (const [i, p] of PATCHES.entries()) {
    const source = require.resolve(p.specifier);
    let text = readFileSync(source, 'utf8');
    for (const e of p.edits) {
      const hits = text.match(new RegExp(e.find.source, 'g'))?.length ?? 0;
      if (hits !== 1) throw new Error(`cdk/bundle-patches.ts: ${p.specifier} (${source}): ${e.find} matched ${hits} times, not once; the package changed`);
      text = text.replace(e.find, e.replace as (...a: string[]) => string);
    }
    mkdirSync(join(dir, String(i)));
    // The package's own tree-shaking hint goes with the copy (stateless.js declares no side effects).
    const pkg = packageJsonOf(source, p.specifier);
    writeFileSync(join(dir, String(i), 'package.json'), JSON.stringify({ sideEffects: pkg.sideEffects ?? true }));
    const file = join(dir, String(i), source.endsWith('.cjs') ? 'index.cjs' : 'index.js');
    writeFileSync(file, text);
    alias[p.specifier] = file;
  }
  written = { dir, alias };
  return alias;
}
