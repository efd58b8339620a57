import type { constants } from 'starknet';
import { chainB } from '#lib/chains/chain-b/index.ts';
import { readChainBConfig } from '#lib/chains/chain-b/config.ts';
import { FaultyChainB } from '#lib/chains/chain-b/faults.ts';
import { RpcChainB, type L1MessageStatus } from '#lib/chains/chain-b/rpc-chain.ts';
import { ethereumConfig, ethereumRpc } from '#lib/chains/ethereum/index.ts';
import { clock } from '#lib/clock.ts';
import { failBridge, transitionBridge, type BridgeRecord } from '#lib/data/bridge-transfers.ts';
import { logger } from '#lib/log.ts';
import { bridgeMint } from './chain-b-credit.ts';
import { checkEthereumDeposit, type EthereumDeposit } from './ethereum-source.ts';
import { routeToken, type StarkgateToken } from './routes.ts';
import { depositL1HandlerTxHash } from './starkgate.ts';

/**
 * The relayer's steps for Ethereum → chain B (StarkGate):
 * - submitted → source_confirmed once the L1 transaction is a confirmed deposit of this record
 *   (./ethereum-source.ts); the L1→L2 message hash becomes the record's messageId; → failed when
 *   it is not this record's deposit, or has not appeared within the confirm window;
 * - source_confirmed → completed: on the local chain B the service plays the Starknet sequencer
 *   and runs the message's `handle_token_deposit` (bridgeMint: the L2 token minted to the
 *   recipient exactly once per message hash, a conditional write); on a real chain B
 *   (CHAINB_ADAPTER=rpc) the sequencer does it, and the record completes when chain B's node
 *   reports the message's L1_HANDLER transaction accepted and SUCCEEDED (`starknet_getMessagesStatus`).
 * Without ETHEREUM_RPC_URL there is no watcher: the records wait at `submitted`.
 */
let warned = false;

function watcher() {
  const rpc = ethereumRpc();
  if (!rpc && !warned) {
    warned = true;
    logger.warn('bridge: ethereum-chainb records wait at submitted: no ETHEREUM_RPC_URL is configured');
  }
  return rpc;
}

const at = () => clock.now().toISOString();

export async function confirmEthereumSource(r: BridgeRecord, windowMs: number): Promise<void> {
  const route = routeToken('ethereum-chainb', r.token);
  const rpc = watcher();
  if (!route || !rpc || !r.sourceTxHash) return;
  const check = await checkEthereumDeposit(
    rpc,
    r.sourceTxHash,
    route,
    { amount: BigInt(r.amountUnits), l2Recipient: r.destAddress },
    ethereumConfig.ETHEREUM_CONFIRMATIONS,
  );
  if (check.ok) {
    await transitionBridge(r.userId, r.id, { from: ['submitted'], to: 'source_confirmed', at: at(), set: { messageId: check.deposit.messageHash } });
    return;
  }
  if (!check.missing && check.waiting) return; // mined, not yet deep enough
  if (check.missing && clock.nowMs() - Date.parse(r.submittedAt ?? r.updatedAt) < windowMs) return;
  const failureReason = check.missing ? 'the source transaction was not found on Ethereum' : check.reason;
  await failBridge(r, { from: ['submitted'], at: at(), failureReason, sourceTxHash: r.sourceTxHash });
}

export async function deliverEthereum(r: BridgeRecord): Promise<void> {
  const route = routeToken('ethereum-chainb', r.token);
  if (!route || !r.messageId || !r.sourceTxHash) return;
  const port = chainB();
  // Under CHAIN_FAULTS the adapter is wrapped (lib/chains/chain-b/faults.ts): the node is the one inside.
  const chain = port instanceof FaultyChainB ? port.inner : port;
  if (!(chain instanceof RpcChainB)) {
    // The local chain B: the sequencer's part, handle_token_deposit on the L2 bridge.
    const { txHash } = await bridgeMint({
      token: route.l2Token,
      to: r.destAddress,
      amount: BigInt(r.amountUnits),
      messageId: r.messageId,
      symbol: r.token,
      name: r.token,
      decimals: route.decimals,
    });
    await transitionBridge(r.userId, r.id, { from: ['source_confirmed'], to: 'completed', at: at(), set: { destTxHash: txHash } });
    return;
  }
  // A real sequencer never sees the embedded L1: its deposits cannot reach a real chain B.
  if (ethereumConfig.ETHEREUM_LOCAL) throw new Error(`bridge ${r.id}: the embedded L1 cannot deliver to a real chain B (CHAINB_ADAPTER=rpc)`);
  const rpc = watcher();
  if (!rpc) return;
  // The L1_HANDLER transaction's hash needs the depositor and nonce: read them again from L1.
  const check = await checkEthereumDeposit(rpc, r.sourceTxHash, route, { amount: BigInt(r.amountUnits), l2Recipient: r.destAddress }, 1);
  if (!check.ok) {
    if (check.missing) throw new Error(`bridge ${r.id}: the confirmed L1 deposit is no longer found (reorg?)`);
    return;
  }
  if (check.deposit.messageHash !== r.messageId) throw new Error(`bridge ${r.id}: the L1 deposit's message hash changed`);
  const outcome = l1HandlerOutcome(
    route,
    { l2Recipient: r.destAddress, amount: BigInt(r.amountUnits) },
    check.deposit,
    await chain.l1MessagesStatus(r.sourceTxHash),
    readChainBConfig().chainId,
  );
  if (outcome.state === 'waiting') return;
  if (outcome.state === 'failed') {
    await transitionBridge(r.userId, r.id, { from: ['source_confirmed'], to: 'failed', at: at(), set: { failureReason: outcome.reason } });
    return;
  }
  await transitionBridge(r.userId, r.id, { from: ['source_confirmed'], to: 'completed', at: at(), set: { destTxHash: outcome.txHash } });
}

export type L1HandlerOutcome = { state: 'waiting' } | { state: 'completed'; txHash: string } | { state: 'failed'; reason: string };

/**
 * Where a deposit's message stands on a real chain B, from `starknet_getMessagesStatus` of its L1
 * transaction: the entry of its own L1_HANDLER transaction (an L1 transaction may send several
 * messages), accepted and SUCCEEDED → completed; REVERTED or REJECTED → failed; else waiting.
 */
export function l1HandlerOutcome(
  route: StarkgateToken,
  record: { l2Recipient: string; amount: bigint },
  deposit: Pick<EthereumDeposit, 'depositor' | 'nonce'>,
  statuses: readonly L1MessageStatus[],
  chainId: constants.StarknetChainId,
): L1HandlerOutcome {
  const handler = depositL1HandlerTxHash(
    {
      l1Bridge: route.l1Bridge,
      l2Bridge: route.l2Bridge,
      l1Token: route.l1Token,
      depositor: deposit.depositor,
      l2Recipient: record.l2Recipient,
      amount: record.amount,
      l1Nonce: deposit.nonce,
    },
    chainId,
  );
  const status = statuses.find((m) => BigInt(m.transactionHash) === BigInt(handler));
  if (!status) return { state: 'waiting' };
  if (status.finalityStatus === 'REJECTED' || status.executionStatus === 'REVERTED') {
    return {
      state: 'failed',
      reason: `the L1 handler transaction ${status.transactionHash} failed on chain B${status.failureReason ? `: ${status.failureReason}` : ''} (the deposit can be cancelled and reclaimed on Ethereum)`,
    };
  }
  if (status.finalityStatus === 'RECEIVED' || status.executionStatus === null) return { state: 'waiting' };
  return { state: 'completed', txHash: status.transactionHash };
}
