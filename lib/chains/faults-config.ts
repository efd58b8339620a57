/**
 * `CHAIN_FAULTS`: one string for the three fault layers (docs/chain-faults.md), comma-separated:
 * `on` (every layer on, with no injected faults), and `name=value` pairs, a name without prefix
 * (or `a.`) being chain A's (lib/chains/chain-a/faults.ts), `b.` chain B's
 * (lib/chains/chain-b/faults.ts) and `l1.` the Ethereum L1's (lib/chains/ethereum/faults.ts).
 * A layer is on when `on` is given or any of its names is: `late=0.1` leaves chain B and the L1
 * as they are, as before chain B and the L1 had layers.
 */
export type FaultLayer = 'a' | 'b' | 'l1';
const PREFIXES: Record<string, FaultLayer> = { 'a.': 'a', 'b.': 'b', 'l1.': 'l1' };

/** The `name=value` pairs of one layer (prefix removed), or undefined when that layer is off. */
export function faultPairsFor(text: string, layer: FaultLayer): Record<string, string> | undefined {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  let on = false;
  const pairs: Record<string, string> = {};
  for (const p of parts) {
    if (p === 'on') {
      on = true;
      continue;
    }
    const eq = p.indexOf('=');
    if (eq <= 0) throw new Error(`CHAIN_FAULTS: "${p}" is not name=value`);
    const name = p.slice(0, eq).trim();
    const value = p.slice(eq + 1).trim();
    const prefix = Object.keys(PREFIXES).find((x) => name.startsWith(x));
    const owner = prefix ? PREFIXES[prefix]! : 'a';
    if (owner !== layer) continue;
    on = true;
    pairs[prefix ? name.slice(prefix.length) : name] = value;
  }
  return on ? pairs : undefined;
}

/** The zod issues of a layer's options as one line naming CHAIN_FAULTS. */
export const faultsError = (issues: readonly { path: PropertyKey[]; message: string }[], layer: FaultLayer): Error =>
  new Error(`CHAIN_FAULTS: ${issues.map((i) => `${layer === 'a' ? '' : `${layer}.`}${i.path.map(String).join('.') || '(all)'}: ${i.message}`).join('; ')}`);

/** mulberry32: a small seeded generator, so that a fault schedule can be replayed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
