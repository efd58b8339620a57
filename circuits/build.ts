/**
 * `npm run circuits [-- --only a,b]`: compiles the circuits (circom `--O2`, the Poseidon overlay of
 * compile.ts) and writes each constraint system to circuits/setup/r1cs/<name>.r1cs, the input of
 * the trusted setup. It says which circuits changed: their keys no longer fit and need phase 2
 * again (`npm run ceremony`, README "Trusted setup"); no key is made here.
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CIRCUITS, PTAU_POWER } from './catalogue.ts';
import { ARTIFACTS, fileSha256, r1csFile, relative } from './ceremony/files.ts';
import { snarkjs, terminateCurve } from './ceremony/snarkjs.ts';
import { readTranscript } from './ceremony/transcript.ts';
import { compile, trimmedPoseidon } from './compile.ts';

const log = (msg: string) => console.log(`[circuits] ${msg}`);

async function main(args: string[]): Promise<void> {
  const only = args.includes('--only') ? new Set(args[args.indexOf('--only') + 1]?.split(',')) : undefined;
  const specs = CIRCUITS.filter((c) => !only || only.has(c.name));
  if (specs.length === 0) throw new Error(`no circuit selected; known: ${CIRCUITS.map((c) => c.name).join(', ')}`);
  const overlay = trimmedPoseidon();
  const changed: string[] = [];
  for (const spec of specs) {
    const t0 = performance.now();
    const { r1cs, wasm } = compile(spec.name, overlay);
    const info = await snarkjs.r1cs.info(r1cs);
    if (info.nConstraints + info.nPubInputs + info.nOutputs + 1 > 2 ** PTAU_POWER) {
      throw new Error(`${spec.name}: ${info.nConstraints} constraints do not fit in 2^${PTAU_POWER}`);
    }
    const declared = spec.inputs.filter((i) => i.visibility === 'public').length;
    if (info.nOutputs + info.nPubInputs !== spec.publicSignals.length || info.nPubInputs !== declared) {
      throw new Error(`${spec.name}: the public signals in circuits/catalogue.ts do not match the circuit`);
    }
    mkdirSync(dirname(r1csFile(spec.name)), { recursive: true });
    copyFileSync(r1cs, r1csFile(spec.name));
    const transcript = existsSync(join(ARTIFACTS, spec.name, 'transcript.json')) ? readTranscript(spec.name) : undefined;
    const wasmShipped = join(ARTIFACTS, spec.name, `${spec.name}.wasm`);
    const same = transcript?.r1cs.sha256 === fileSha256(r1cs) && existsSync(wasmShipped) && fileSha256(wasmShipped) === fileSha256(wasm);
    if (!same) changed.push(spec.name);
    log(
      `${spec.name}: ${info.nConstraints} constraints, ${relative(r1csFile(spec.name))} (${((performance.now() - t0) / 1000).toFixed(1)} s)${same ? '' : ': CHANGED'}`,
    );
  }
  if (changed.length) {
    log(
      `changed since their keys were made: ${changed.join(', ')}. Run phase 2 for them: \`npm run ceremony -- start --only ${changed.join(',')}\`, ` +
        'the contributions, then `finalize` (or `npm run ceremony -- dev --keep-phase1 --beacon <hex> --only …` for a development key)',
    );
  } else {
    log('every circuit compiles to the constraint system and witness generator its key was made for');
  }
}

try {
  await main(process.argv.slice(2));
} finally {
  await terminateCurve();
}
