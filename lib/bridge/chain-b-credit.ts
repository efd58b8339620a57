/**
 * The chain B side of a delivery: the bridged token minted to the recipient, exactly once per
 * message id, and balances (lib/chains/chain-b: the local ledger or a real node).
 */
export { balanceOf, bridgeMint } from '#lib/chains/chain-b/index.ts';
