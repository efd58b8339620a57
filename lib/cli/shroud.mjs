#!/usr/bin/env node
// The `shroud` binary (package.json `bin`): the TypeScript program through tsx's loader.
import { register } from 'tsx/esm/api';

register();
const { run } = await import('./main.ts');
const code = await run(process.argv.slice(2));
// snarkjs keeps worker threads alive after a proof: leave once the output is flushed.
process.stdout.write('', () => process.exit(code));
