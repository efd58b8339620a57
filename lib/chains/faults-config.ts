import * as z from 'zod';

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

/**
 * A layer's options from `CHAIN_FAULTS`: its own `settings` (zod fields keyed by their names in the
 * string), `seed` and a rate (a probability) per fault in `faults`; unknown names are refused.
 * Undefined when the layer is off.
 */
export function layerOptions<F extends string>(
  text: string,
  layer: FaultLayer,
  settings: Record<string, z.ZodType<number>>,
  faults: readonly F[],
): { settings: Record<string, number>; seed: number; rates: Partial<Record<F, number>> } | undefined {
  const pairs = faultPairsFor(text, layer);
  if (!pairs) return undefined;
  const rate = z.coerce.number().min(0).max(1);
  const schema = z.object({ ...settings, seed: z.coerce.number().int().default(1), ...Object.fromEntries(faults.map((f) => [f, rate.optional()])) }).strict();
  const parsed = schema.safeParse(pairs);
  if (!parsed.success) throw faultsError(parsed.error.issues, layer);
  const o = parsed.data as Record<string, number | undefined>;
  const rates: Partial<Record<F, number>> = {};
  for (const f of faults) if (o[f] !== undefined) rates[f] = o[f];
  return { settings: o as Record<string, number>, seed: o.seed!, rates };
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

/**
 * The fault a layer draws for one call when none is queued: each fault in turn, with its rate, on
 * the layer's seeded generator (the same order and draws for the same seed, so a schedule replays).
 */
export function drawFault<F extends string>(faults: readonly F[], rates: Partial<Record<F, number>>, random: () => number): F | undefined {
  for (const f of faults) {
    const p = rates[f] ?? 0;
    if (p > 0 && random() < p) return f;
  }
  return undefined;
}
