import { addressOf, eventTopic, uintArrayAt, words } from '#lib/chains/ethereum/abi.ts';
import type { EthLog, EthereumRpc } from '#lib/chains/ethereum/index.ts';
import type { StarkgateToken } from './routes.ts';
import { depositMessageHash, depositPayload, HANDLE_TOKEN_DEPOSIT, STARKNET_CORE_CONTRACT } from './starkgate.ts';

/**
 * The source side of an Ethereum → chain B deposit through StarkGate: the L1 transaction the
 * caller attached must be mined and successful, with at least `confirmations` blocks, and carry
 * - from the route's L1 bridge, StarkGate v2's `Deposit(sender, token, amount, l2Recipient, nonce,
 *   fee)` with the route's L1 token, the record's exact amount and its destAddress as l2Recipient;
 * - from the Starknet core contract, the `LogMessageToL2` of that deposit: from the L1 bridge to
 *   the L2 bridge, selector `handle_token_deposit`, the deposit's payload and nonce;
 * - in a block that is still the canonical one at its height once it is deep enough.
 * The L1→L2 message hash is then computed as the core contract and the sequencer compute it
 * (./starkgate.ts).
 */
export const DEPOSIT_TOPIC = eventTopic('Deposit(address,address,uint256,uint256,uint256,uint256)');
export const LOG_MESSAGE_TO_L2_TOPIC = eventTopic('LogMessageToL2(address,uint256,uint256,uint256[],uint256,uint256)');

export interface EthereumDeposit {
  messageHash: string;
  depositor: string;
  nonce: bigint;
  fee: bigint;
  blockNumber: bigint;
}

export type EthereumSourceCheck =
  | { ok: true; deposit: EthereumDeposit }
  | { ok: false; missing: true }
  /** Mined and valid so far, but not yet `confirmations` deep. */
  | { ok: false; missing: false; waiting: true; confirmations: bigint }
  | { ok: false; missing: false; waiting: false; reason: string };

interface DecodedDeposit {
  sender: string;
  token: string;
  amount: bigint;
  l2Recipient: bigint;
  nonce: bigint;
  fee: bigint;
}

const sameAddress = (a: string, b: string) => BigInt(a) === BigInt(b);

function decodeDeposit(log: EthLog): DecodedDeposit | undefined {
  if (log.topics.length !== 4) return undefined;
  const [amount, nonce, fee] = words(log.data);
  const sender = addressOf(log.topics[1]);
  const token = addressOf(log.topics[2]);
  if (amount === undefined || nonce === undefined || fee === undefined || !sender || !token) return undefined;
  return { sender, token, amount, l2Recipient: BigInt(log.topics[3]!), nonce, fee };
}

function decodeMessage(log: EthLog): { from: string; to: bigint; selector: bigint; payload: bigint[]; nonce: bigint; fee: bigint } | undefined {
  if (log.topics.length !== 4) return undefined;
  try {
    const w = words(log.data);
    const from = addressOf(log.topics[1]);
    if (!from || w[1] === undefined || w[2] === undefined) return undefined;
    return { from, to: BigInt(log.topics[2]!), selector: BigInt(log.topics[3]!), payload: uintArrayAt(w, 0), nonce: w[1], fee: w[2] };
  } catch {
    return undefined;
  }
}

const fail = (reason: string): EthereumSourceCheck => ({ ok: false, missing: false, waiting: false, reason });

/** Whether `txHash` is a confirmed StarkGate deposit of exactly `amount` (smallest units) of the route's token to `l2Recipient`. */
export async function checkEthereumDeposit(
  rpc: EthereumRpc,
  txHash: string,
  route: StarkgateToken,
  expected: { amount: bigint; l2Recipient: string },
  confirmations: number,
): Promise<EthereumSourceCheck> {
  const receipt = await rpc.getTransactionReceipt(txHash);
  if (!receipt) return { ok: false, missing: true };
  if (receipt.status !== 1) return fail('the source transaction reverted on Ethereum');

  const deposits = receipt.logs.filter((l) => sameAddress(l.address, route.l1Bridge) && l.topics[0] === DEPOSIT_TOPIC);
  if (deposits.length === 0) return fail(`the source transaction carries no StarkGate Deposit from the ${route.l1Bridge} bridge`);
  const decoded = deposits.map((log) => ({ log, d: decodeDeposit(log) }));
  const recipient = BigInt(expected.l2Recipient);
  const match = decoded.find(({ d }) => d && sameAddress(d.token, route.l1Token) && d.amount === expected.amount && d.l2Recipient === recipient);
  if (!match) {
    // The first deposit says what is wrong with it (a transaction normally carries one).
    const d = decoded[0]!.d;
    if (!d) return fail('the StarkGate Deposit event is malformed');
    if (!sameAddress(d.token, route.l1Token)) return fail(`the deposit is of the token ${d.token}, not ${route.l1Token}`);
    if (d.amount !== expected.amount) return fail(`the deposit is of ${d.amount} smallest units, the record expects ${expected.amount}`);
    return fail(`the deposit's l2Recipient is 0x${d.l2Recipient.toString(16)}, not the record's destAddress`);
  }
  const d = match.d!;
  const payload = depositPayload({ l1Token: route.l1Token, depositor: d.sender, l2Recipient: expected.l2Recipient, amount: d.amount });
  const message = receipt.logs
    .filter((l) => sameAddress(l.address, STARKNET_CORE_CONTRACT) && l.topics[0] === LOG_MESSAGE_TO_L2_TOPIC)
    .map(decodeMessage)
    .find(
      (m) =>
        m &&
        sameAddress(m.from, route.l1Bridge) &&
        m.to === BigInt(route.l2Bridge) &&
        m.selector === BigInt(HANDLE_TOKEN_DEPOSIT) &&
        m.nonce === d.nonce &&
        m.payload.length === payload.length &&
        m.payload.every((x, i) => x === payload[i]),
    );
  if (!message) return fail('the source transaction carries no L1→L2 message of the deposit from the Starknet core contract');

  const head = await rpc.blockNumber();
  const depth = head >= receipt.blockNumber ? head - receipt.blockNumber + 1n : 0n;
  if (depth < BigInt(confirmations)) return { ok: false, missing: false, waiting: true, confirmations: depth };
  // Deep enough only if its block is still the canonical one at that height, read after the head:
  // a receipt of a block that a reorganization removed (a node behind, a provider's stale index)
  // would otherwise count the new fork's blocks as its confirmations. Removed: as if not mined yet
  // (it may be mined again in a later block, with confirmations of its own).
  if ((await rpc.getBlockHash(receipt.blockNumber)) !== receipt.blockHash) return { ok: false, missing: true };

  const messageHash = depositMessageHash({
    l1Bridge: route.l1Bridge,
    l2Bridge: route.l2Bridge,
    l1Token: route.l1Token,
    depositor: d.sender,
    l2Recipient: expected.l2Recipient,
    amount: d.amount,
    l1Nonce: d.nonce,
  });
  return { ok: true, deposit: { messageHash, depositor: d.sender, nonce: d.nonce, fee: message.fee, blockNumber: receipt.blockNumber } };
}
