import { hash, type Call } from 'starknet';
import { toHex, toHex64 } from './felts.ts';
import { u256Felts } from './tokens.ts';

/**
 * The call a wallet makes to send a bridged token back through a Hyperlane warp route:
 * `transfer_remote(destination: u32, recipient: u256, amount_or_id: u256, value: u256,
 * hook_metadata: Option<Bytes>, hook: Option<ContractAddress>)` (hyperlane-starknet's
 * TokenRouterComponent), serialised as Cairo does (u256 = [low, high]; Option::None = 1) with the
 * default hook and no interchain gas value.
 */
export function transferRemoteCall(router: string, destination: number, recipient: bigint, amount: bigint, value = 0n): Call {
  return {
    contractAddress: toHex64(router),
    entrypoint: 'transfer_remote',
    calldata: [toHex(destination), ...u256Felts(recipient), ...u256Felts(amount), ...u256Felts(value), '0x1', '0x1'],
  };
}

/** The keys (selectors) of the warp route's and the Mailbox's events a withdrawal emits. */
export const WARP_EVENT_KEYS = {
  sentTransferRemote: toHex(hash.getSelectorFromName('SentTransferRemote')),
  dispatch: toHex(hash.getSelectorFromName('Dispatch')),
  dispatchId: toHex(hash.getSelectorFromName('DispatchId')),
} as const;
