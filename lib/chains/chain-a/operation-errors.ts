/**
 * The refusals of lib/chains/chain-a/operations.ts, in a module of their own: lib/wallets/chain-a-errors.ts
 * maps them for every function that reaches the wallets, and importing them from operations.ts
 * parsed Light's and the SPL token SDKs at each of those cold starts.
 */

/** Not enough of something to cover an amount; `have` is what there is. */
export class NotEnough extends Error {
  constructor(
    readonly what: string,
    readonly have: bigint,
    readonly need: bigint,
  ) {
    super(`not enough ${what}: have ${have}, need ${need}`);
    this.name = 'NotEnough';
  }
}

/** An address that is not a mint of the SPL token program. */
export class NotAMint extends Error {
  constructor(readonly mint: string) {
    super(`${mint} is not a token mint`);
    this.name = 'NotAMint';
  }
}
