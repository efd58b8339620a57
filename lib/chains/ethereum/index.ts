import { ethereumConfig } from './config.ts';
import { FaultyEthereumRpc, l1Faults } from './faults.ts';
import { EthereumRpc } from './rpc.ts';

export { EthereumRpc, EthereumUnavailable, type EthLog, type EthReceipt, type EthTransaction } from './rpc.ts';
export { ethereumConfig, readEthereumConfig, type EthereumConfig } from './config.ts';

let rpc: EthereumRpc | undefined;

/** The L1 this process watches (ETHEREUM_RPC_URL); undefined when none is configured. */
export function ethereumRpc(): EthereumRpc | undefined {
  if (!ethereumConfig.ETHEREUM_RPC_URL) return undefined;
  if (rpc) return rpc;
  // CHAIN_FAULTS with l1. names (or on): the node as a real network's misbehaves (faults.ts).
  const faults = ethereumConfig.CHAIN_FAULTS ? l1Faults(ethereumConfig.CHAIN_FAULTS) : undefined;
  rpc = faults
    ? new FaultyEthereumRpc({ url: ethereumConfig.ETHEREUM_RPC_URL }, faults, ethereumConfig.ETHEREUM_LOCAL)
    : new EthereumRpc({ url: ethereumConfig.ETHEREUM_RPC_URL });
  return rpc;
}
