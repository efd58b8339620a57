import type { ResourceBoundsBN } from 'starknet';

/**
 * The local chain's fee market, fixed (a real node quotes prices per block and the gas a
 * transaction used): prices in FRI per unit, and the gas each kind of transaction consumes,
 * close to what Starknet charged in 2025 for an ERC-20 transfer and an OpenZeppelin account
 * deployment. A transaction's fee is Σ used·price over the three resources, paid in STRK.
 */
export const LOCAL_GAS_PRICES = {
  l1_gas: 30_000_000_000_000n,
  l2_gas: 8_000_000_000n,
  l1_data_gas: 1_000_000_000n,
} as const;

export type Resource = keyof typeof LOCAL_GAS_PRICES;
export type GasUse = Record<Resource, bigint>;

export const LOCAL_GAS_USE = {
  /** INVOKE of an account's __execute__ with one ERC-20 transfer. */
  invoke: { l1_gas: 0n, l2_gas: 900_000n, l1_data_gas: 128n },
  /** DEPLOY_ACCOUNT of the OpenZeppelin account. */
  deployAccount: { l1_gas: 0n, l2_gas: 700_000n, l1_data_gas: 224n },
} as const satisfies Record<string, GasUse>;

const RESOURCES: Resource[] = ['l1_gas', 'l2_gas', 'l1_data_gas'];

export const feeOf = (use: GasUse, prices: GasUse = LOCAL_GAS_PRICES): bigint => RESOURCES.reduce((sum, r) => sum + use[r] * prices[r], 0n);

/** The most a transaction may cost: Σ max_amount·max_price_per_unit (what the account must hold). */
export const maxFeeOf = (b: ResourceBoundsBN): bigint => RESOURCES.reduce((sum, r) => sum + b[r].max_amount * b[r].max_price_per_unit, 0n);

/** What starknet.js adds to an estimate by default: +50 % gas, +50 % price. */
export function boundsFor(use: GasUse, prices: GasUse = LOCAL_GAS_PRICES): ResourceBoundsBN {
  const bound = (r: Resource) => ({ max_amount: (use[r] * 3n) / 2n, max_price_per_unit: (prices[r] * 3n) / 2n });
  return { l1_gas: bound('l1_gas'), l2_gas: bound('l2_gas'), l1_data_gas: bound('l1_data_gas') };
}

/** The first resource whose bound does not cover the use at the current price (a node refuses the transaction), or null. */
export function insufficientBound(b: ResourceBoundsBN, use: GasUse, prices: GasUse = LOCAL_GAS_PRICES): Resource | null {
  for (const r of RESOURCES) {
    if (use[r] === 0n) continue;
    if (b[r].max_amount < use[r] || b[r].max_price_per_unit < prices[r]) return r;
  }
  return null;
}
