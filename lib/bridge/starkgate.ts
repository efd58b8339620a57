import { hash, type constants } from 'starknet';

/**
 * StarkGate (Ethereum → chain B). A deposit on the L1 bridge (`deposit(token, amount,
 * l2Recipient)`) sends the L1→L2 message `handle_token_deposit(l1_token, depositor,
 * l2_recipient, amount_low, amount_high)` to the L2 bridge; the Starknet core contract names it
 * by its message hash, computed here as starknet.js (`hash.getL2MessageHash`) and the core
 * contract compute it: keccak(from ‖ to ‖ nonce ‖ selector ‖ payload length ‖ payload).
 * The nonce is the core contract's message nonce, read from the L1 transaction's
 * `LogMessageToL2` event.
 */
export const HANDLE_TOKEN_DEPOSIT = hash.getSelectorFromName('handle_token_deposit');

export interface StarkgateDeposit {
  l1Bridge: string;
  l2Bridge: string;
  l1Token: string;
  /** The L1 address that called `deposit`. */
  depositor: string;
  l2Recipient: string;
  amount: bigint;
  l1Nonce: bigint;
}

const LOW = (1n << 128n) - 1n;

export const depositPayload = (d: Pick<StarkgateDeposit, 'l1Token' | 'depositor' | 'l2Recipient' | 'amount'>): bigint[] => [
  BigInt(d.l1Token),
  BigInt(d.depositor),
  BigInt(d.l2Recipient),
  d.amount & LOW,
  d.amount >> 128n,
];

export const depositMessageHash = (d: StarkgateDeposit): string =>
  hash.getL2MessageHash(d.l1Bridge, d.l2Bridge, HANDLE_TOKEN_DEPOSIT, depositPayload(d), d.l1Nonce);

/** The hash of the L1_HANDLER transaction that consumes the deposit's message on chain B (`chainId` of chain B). */
export const depositL1HandlerTxHash = (d: StarkgateDeposit, chainId: constants.StarknetChainId): string =>
  hash.calculateL2MessageTxHash(d.l1Bridge, d.l2Bridge, HANDLE_TOKEN_DEPOSIT, depositPayload(d), chainId, d.l1Nonce);

/**
 * The Starknet core contract on Ethereum mainnet (the L1→L2 messaging: `LogMessageToL2`), as
 * Starknet's documentation lists it; the embedded L1 runs its messaging at the same address.
 */
export const STARKNET_CORE_CONTRACT = '0xc662c410C0ECf747543f5bA90660f6ABeBD9C8c4';
