#!/usr/bin/env node
// The `shroud` binary (package.json `bin`): the bundled program (lib/cli/build.mjs makes
// lib/cli/dist/main.js, `npm ci` runs it). A bundle missing or older than a source it was made of
// is made again first; without esbuild (a production-only install) the TypeScript runs through tsx.
import { readFileSync, statSync } from 'node:fs';

const dist = new URL('./dist/', import.meta.url);
const root = new URL('../../', import.meta.url);
const mtime = (url) => {
  try {
    return statSync(url).mtimeMs;
  } catch {
    return -1;
  }
};

function fresh() {
  const built = mtime(new URL('main.js', dist));
  if (built < 0) return false;
  try {
    const inputs = JSON.parse(readFileSync(new URL('inputs.json', dist), 'utf8'));
    return inputs.every((f) => mtime(new URL(f, root)) <= built);
  } catch {
    return false;
  }
}

let main;
if (!fresh()) {
  try {
    await (await import('./build.mjs')).buildCli();
  } catch (e) {
    if (e?.code !== 'ERR_MODULE_NOT_FOUND') throw e;
    const { register } = await import('tsx/esm/api');
    register();
    main = await import('./main.ts');
  }
}
main ??= await import('./dist/main.js');
const code = await main.run(process.argv.slice(2));
// snarkjs keeps worker threads alive after a proof: leave once the output is flushed.
process.stdout.write('', () => process.exit(code));
