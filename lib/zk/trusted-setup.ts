import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The guard of a stage that moves real value: it refuses keys from a development ceremony (a local
 * phase 1, or fewer independent phase-2 contributions than required: circuits/ceremony/transcript.ts),
 * whose toxic waste one machine saw go by. Called at synth (cdk/app.ts), when the local runtime
 * starts and when a function first loads the circuit registry (lib/zk/circuits.ts).
 */
export interface ValueSettings {
  CHAIN_A_NETWORK?: string;
  /** `true` on a stage deployed with `-c production=true` (the stack sets it on every function). */
  SHROUD_PRODUCTION?: string;
}

export const movesRealValue = (env: ValueSettings): boolean => env.CHAIN_A_NETWORK === 'mainnet' || env.SHROUD_PRODUCTION === 'true';

/** The circuits under `dir` whose transcript is not `public` (a missing transcript counts as development). */
export function developmentCircuits(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isDirectory() || !existsSync(join(dir, entry.name, 'circuit.json'))) continue;
    const file = join(dir, entry.name, 'transcript.json');
    const kind = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { kind?: unknown }).kind : undefined;
    if (kind !== 'public') found.push(entry.name);
  }
  return found;
}

/** Throws one error naming every development circuit, and the command that fixes it, on a stage that moves real value. */
export function assertTrustedSetup(dir: string, env: ValueSettings): void {
  if (!movesRealValue(env)) return;
  const dev = developmentCircuits(dir);
  if (dev.length === 0) return;
  const why = env.CHAIN_A_NETWORK === 'mainnet' ? 'CHAIN_A_NETWORK=mainnet' : 'a production stage';
  throw new Error(
    `refusing ${why}: the keys of ${dev.join(', ')} come from a development ceremony, and whoever ran it could forge their proofs. ` +
      'Run a public ceremony first: `npm run ceremony -- phase1 import <published .ptau>`, then `start`, ' +
      'a `contribute --name <who>` by each independent party, and `finalize --beacon <hex>` (docs/zk.md, "Trusted setup").',
  );
}
