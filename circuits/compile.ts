import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILD, CIRCUITS_ROOT, NODE_MODULES, REPO_ROOT } from './ceremony/files.ts';

/** Poseidon arities the circuits use (t = inputs + 1); see trimmedPoseidon(). */
const POSEIDON_MAX_T = 4;

/**
 * circomlib's poseidon_constants.circom holds the constants of every arity up to t = 17 and circom
 * embeds all of them in each witness wasm (1.6–1.8 MB per circuit). An overlay copy keeping only
 * the branches for t <= POSEIDON_MAX_T (byte-identical to circomlib's) brings each wasm to about
 * 0.5 MB. The overlay directory comes first on circom's library path, so it shadows circomlib's
 * poseidon files only; the tests check the outputs against circomlibjs.
 */
export function trimmedPoseidon(overlay = join(BUILD, 'overlay')): string {
  const src = join(NODE_MODULES, 'circomlib', 'circuits');
  const dst = join(overlay, 'circomlib', 'circuits');
  mkdirSync(dst, { recursive: true });
  copyFileSync(join(src, 'poseidon.circom'), join(dst, 'poseidon.circom'));
  const out: string[] = [];
  let skipping = false;
  for (const line of readFileSync(join(src, 'poseidon_constants.circom'), 'utf8').split('\n')) {
    const branch = /^\s*\} else if \(t\s*==\s*(\d+)\) \{/.exec(line);
    if (branch && Number(branch[1]) > POSEIDON_MAX_T) skipping = true;
    else if (skipping && /^\s*\} else \{/.test(line)) skipping = false;
    if (!skipping) out.push(line);
  }
  writeFileSync(join(dst, 'poseidon_constants.circom'), out.join('\n'));
  return overlay;
}

/** Compiles circuits/<name>.circom (`--O2`) into `outDir`: `<name>.r1cs` and `<name>_js/<name>.wasm`. */
export function compile(name: string, overlay: string, outDir = join(BUILD, name)): { r1cs: string; wasm: string } {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  // circom2 runs under WASI with the working directory as its only preopened root: relative paths.
  const rel = (p: string) => p.slice(REPO_ROOT.length + 1);
  execFileSync(
    process.execPath,
    [
      join(NODE_MODULES, 'circom2', 'cli.js'),
      rel(join(CIRCUITS_ROOT, `${name}.circom`)),
      '--r1cs',
      '--wasm',
      '--O2', // full linear simplification: membership is 4,840 constraints instead of 10,420
      '-l',
      rel(overlay),
      '-l',
      rel(NODE_MODULES),
      '-o',
      rel(outDir),
    ],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return { r1cs: join(outDir, `${name}.r1cs`), wasm: join(outDir, `${name}_js`, `${name}.wasm`) };
}
