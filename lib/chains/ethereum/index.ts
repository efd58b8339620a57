import { readEthereumConfig } from './config.ts';
import { EthereumRpc } from './rpc.ts';

export { EthereumRpc, EthereumUnavailable, type EthLog, type EthReceipt, type EthTransaction } from './rpc.ts';
export { readEthereumConfig, type EthereumConfig } from './config.ts';

/** Checked at cold start: a bad ETHEREUM_* value stops the function before it serves. */
export const ethereumConfig = readEthereumConfig();

let rpc: EthereumRpc | undefined;

/** The L1 this process watches (ETHEREUM_RPC_URL); undefined when none is configured. */
export function ethereumRpc(): EthereumRpc | undefined {
  if (!ethereumConfig.ETHEREUM_RPC_URL) return undefined;
  rpc ??= new EthereumRpc({ url: ethereumConfig.ETHEREUM_RPC_URL });
  return rpc;
}
