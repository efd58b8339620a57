import { chainA } from '#lib/chains/chain-a/index.ts';
import { ethereumConfig, ethereumRpc } from '#lib/chains/ethereum/index.ts';
import type { BridgeRecord } from '#lib/data/bridge-transfers.ts';
import { logger } from '#lib/log.ts';
import { checkDeposit } from './chain-a-source.ts';
import { checkWithdraw } from './chain-b-source.ts';
import { checkEthereumDeposit } from './ethereum-source.ts';
import { routeToken } from './routes.ts';

/**
 * Whether a transaction a caller attaches (`source-tx`) names the record, checked before the
 * transaction is reserved for it (test/api/bridge.test.ts, front-running: a record that reserved another's deposit blocked its
 * owner). The relayer's own checks, read once now:
 * - `mismatch`: on its chain and not this record's (memo, recipient, amount, token, reverted):
 *   refused, nothing reserved;
 * - `names`: on its chain and this record's (maybe not yet deep enough);
 * - `unknown`: not on its chain yet (or no watcher, or its node did not answer): reserved, and
 *   the relayer decides — a record that fails releases it (failBridge, lib/data/bridge-transfers.ts).
 */
export type SourceVerdict = { kind: 'names' } | { kind: 'unknown' } | { kind: 'mismatch'; reason: string };

export async function sourceVerdict(r: BridgeRecord, txHash: string): Promise<SourceVerdict> {
  try {
    return await check(r, txHash);
  } catch (e) {
    // The chain's node did not answer: the relayer checks again, and a failure releases the claim.
    logger.warn('bridge: source transaction not checked before attaching', { bridgeId: r.id, error: e as Error });
    return { kind: 'unknown' };
  }
}

async function check(r: BridgeRecord, txHash: string): Promise<SourceVerdict> {
  const amount = BigInt(r.amountUnits);
  if (r.direction === 'withdraw') {
    const route = routeToken('chaina-chainb', r.token);
    if (!route) return { kind: 'unknown' };
    return verdict(await checkWithdraw(txHash, route, r.destAddress, amount));
  }
  if (r.bridgeType === 'chaina-chainb') {
    const route = routeToken('chaina-chainb', r.token);
    if (!route) return { kind: 'unknown' };
    return verdict(await checkDeposit(await chainA(), txHash, route, amount, r.id));
  }
  const route = routeToken('ethereum-chainb', r.token);
  const rpc = ethereumRpc();
  if (!route || !rpc) return { kind: 'unknown' };
  const out = await checkEthereumDeposit(rpc, txHash, route, { amount, l2Recipient: r.destAddress }, ethereumConfig.ETHEREUM_CONFIRMATIONS);
  if (!out.ok && !out.missing && out.waiting) return { kind: 'names' };
  return verdict(out);
}

function verdict(out: { ok: true } | { ok: false; missing: true } | { ok: false; missing: false; reason: string }): SourceVerdict {
  if (out.ok) return { kind: 'names' };
  return out.missing ? { kind: 'unknown' } : { kind: 'mismatch', reason: out.reason };
}
