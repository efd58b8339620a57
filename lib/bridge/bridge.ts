import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { chainA } from '#lib/chains/chain-a/index.ts';
import { clock } from '#lib/clock.ts';
import {
  attachSource,
  BRIDGE_STATUSES,
  failBridge,
  insertBridge,
  listBridges,
  readBridge,
  transitionBridge,
  type BridgeRecord,
} from '#lib/data/bridge-transfers.ts';
import { errors, isAppError } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { onChainA } from '#lib/wallets/chain-a-errors.ts';
import { withWalletLock } from '#lib/wallets/lock.ts';
import { walletConfig } from '#lib/wallets/config.ts';
import { journaled, MoveUnsettled, submitted as submittedMove } from '#lib/moves/journal.ts';
import { submittedB } from '#lib/moves/chain-b.ts';
import { submittedAnswer } from '#lib/moves/responses.ts';
import { chainASigner, ownedWallet } from '#lib/wallets/wallets.ts';
import { chainAAddress, chainBAddress, chainBTxHash, parseAmount, sourceTxHash, U256_MAX, U64_MAX } from './inputs.ts';
import { BRIDGE_TYPES, DIRECTIONS, isHyperlaneToken, ROUTE_TOKENS, routeToken, type BridgeType, type HyperlaneToken } from './routes.ts';

/**
 * The chains' side of the bridge (Solana's token and Light libraries, web3.js, Starknet), loaded
 * with the first request that sends or checks a transfer: history, status and cancel read only
 * DynamoDB and do not parse them at their cold start (test/infra/lambda-assets.test.ts).
 */
const chainSide = async () => {
  const [source, withdraw, check] = await Promise.all([import('./chain-a-source.ts'), import('./withdraw.ts'), import('./source-check.ts')]);
  return { ...source, ...withdraw, ...check };
};
type ChainSide = Awaited<ReturnType<typeof chainSide>>;

/**
 * Bridge transfers into chain B and back: a record per transfer, moved through its
 * states by conditional writes (lib/data/bridge-transfers.ts), the source transaction sent by the
 * service from the caller's wallet (chain A for deposits, chain B for withdrawals: ./withdraw.ts)
 * or attached by the caller, and the relayer (./relayer.ts) confirming and delivering.
 */

/** A record waits this long for its source transaction, then it is `expired`. */
export const SOURCE_WINDOW_MS = 60 * 60 * 1000;

const str = (field: string) =>
  z
    .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') })
    .min(1, 'must not be empty')
    .max(200);

export const initiateInput = z.object({
  bridgeType: str('bridgeType'),
  direction: str('direction'),
  token: str('token'),
  amount: str('amount'),
  destAddress: str('destAddress'),
  walletId: str('walletId').optional(),
  /** A withdrawal from the caller's chain B wallet: its key opens only with the password. */
  password: z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(1024).optional(),
});
export const bridgeIdParams = z.object({ id: z.string().min(1).max(64) });
export const sourceTxInput = z.object({ txHash: str('txHash') });

export const bridgeTransaction = z.object({
  id: z.string(),
  bridgeType: z.enum(BRIDGE_TYPES),
  direction: z.enum(DIRECTIONS),
  token: z.string(),
  amount: z.string(),
  destAddress: z.string(),
  status: z.enum(BRIDGE_STATUSES),
  sourceTxHash: z.string().nullable(),
  destTxHash: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  expiresAt: z.string(),
});
export type BridgeTransaction = z.infer<typeof bridgeTransaction>;
export const initiateResponse = z.object({
  transaction: bridgeTransaction,
  bridgeUrl: z.string(),
  instructions: z.object({ step1: z.string(), step2: z.string(), step3: z.string() }),
});
/** 202: the service's own deposit was sent and the chain has not settled it: the record, and the move (lib/moves/journal.ts). */
export const initiateSubmitted = initiateResponse.extend(submittedAnswer.shape);
export const statusResponse = z.object({ transaction: bridgeTransaction });
export const historyResponse = z.object({ transactions: z.array(bridgeTransaction) });

export const view = (r: BridgeRecord): BridgeTransaction => ({
  id: r.id,
  bridgeType: r.bridgeType,
  direction: r.direction,
  token: r.token,
  amount: r.amount,
  destAddress: r.destAddress,
  status: r.status,
  sourceTxHash: r.sourceTxHash,
  destTxHash: r.destTxHash,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
  expiresAt: r.expiresAt,
});

function checkRoute(input: z.infer<typeof initiateInput>): BridgeType {
  if (!(BRIDGE_TYPES as readonly string[]).includes(input.bridgeType)) {
    throw errors.unsupportedRoute(`bridgeType: one of ${BRIDGE_TYPES.join(', ')}`);
  }
  if (!(DIRECTIONS as readonly string[]).includes(input.direction)) throw errors.unsupportedRoute(`direction: one of ${DIRECTIONS.join(', ')}`);
  if (input.direction === 'withdraw' && input.bridgeType !== 'chaina-chainb') {
    throw errors.unsupportedRoute(`direction: withdrawals are offered on chaina-chainb only, not ${input.bridgeType}`);
  }
  return input.bridgeType as BridgeType;
}

// ---- the operations -------------------------------------------------------------------------

export async function initiateBridge(userId: string, input: z.infer<typeof initiateInput>) {
  const bridgeType = checkRoute(input);
  if (!ROUTE_TOKENS[bridgeType].includes(input.token)) {
    throw errors.unsupportedToken(`token: ${bridgeType} accepts ${ROUTE_TOKENS[bridgeType].join(', ')}`);
  }
  const route = routeToken(bridgeType, input.token);
  if (!route) throw errors.unsupportedToken(`token: the pinned registry has no ${bridgeType} route for ${input.token}`);
  // chaina-chainb's tokens are Hyperlane warp routes (what its deposits and withdrawals need), ethereum-chainb's StarkGate's.
  const hyperlane = isHyperlaneToken(route) ? route : undefined;
  if (input.direction === 'withdraw') {
    // checkRoute has refused a withdrawal on any other route already: this only narrows the token.
    if (!hyperlane) throw errors.unsupportedRoute(`direction: withdrawals are offered on chaina-chainb only, not ${bridgeType}`);
    return initiateWithdraw(userId, input, hyperlane);
  }
  if (input.password !== undefined) throw errors.invalidInput('password: only a withdrawal from a chain B wallet takes a password');
  const destAddress = chainBAddress(input.destAddress);
  const units = parseAmount(input.amount, route.decimals, bridgeType === 'chaina-chainb' ? U64_MAX : U256_MAX);
  if (input.walletId !== undefined && !hyperlane) {
    throw errors.invalidInput('walletId: the service sends the source transaction only on the chaina-chainb route');
  }
  const wallet = input.walletId === undefined ? undefined : await ownedWallet(userId, input.walletId);
  if (wallet && wallet.chain !== 'a') throw errors.invalidInput('walletId: needs a chain A wallet');

  const record = newRecord(userId, {
    bridgeType,
    direction: 'deposit',
    token: input.token,
    amount: input.amount,
    amountUnits: units,
    destAddress,
    walletId: wallet?.id ?? null,
  });
  const side = await chainSide();
  const { escrowAccount, prepareRoute, sendDeposit } = side;
  const answer = (r: BridgeRecord) => ({ transaction: view(r), bridgeUrl: bridgeUrl(bridgeType), instructions: instructions(side, r) });
  // Instructions for the caller (a walletId off chaina-chainb was refused above).
  if (!wallet || !hyperlane) {
    await insertBridge(record);
    // The embedded chain A: the route's mint and escrow exist before anyone is told to send to them.
    if (hyperlane) await prepareRoute(await chainA(), hyperlane, escrowAccount(hyperlane));
    return answer(record);
  }

  // Sent by the service: the record is written once the wallet's lease is held and its balance
  // covers the amount, just before sending (sendDeposit's beforeSend), so a deposit refused before
  // anything is sent (locked wallet, short balance, chain A unreachable) leaves no record. It takes
  // the transaction's signature before the transaction goes out (as withdrawals do, withdraw.ts):
  // once out, the signature is public, and no other record may reserve it first.
  const chain = await chainA();
  const signer = await chainASigner(wallet);
  /** Set once the record holds it: the signature of the transaction about to be sent. */
  let signature: string | undefined;
  /** The record as this call leaves it (`submitted`), read before the send: the answer. */
  let submitted: BridgeRecord | undefined;
  try {
    await withWalletLock(wallet, (owner) =>
      onChainA(() =>
        sendDeposit(
          chain,
          signer,
          hyperlane,
          units,
          record.id,
          async (sig) => {
            await insertBridge(record);
            const outcome = await attachSource(userId, record, sig, clock.now().toISOString());
            if (outcome !== 'attached') throw new Error(`bridge ${record.id}: its own source transaction was refused (${outcome})`);
            signature = sig;
            // Read now: once the transaction is out, the relayer may move the record on at any moment.
            submitted = await readBridge(userId, record.id);
          },
          journaled(chain, {
            userId,
            purpose: { kind: 'wallet-send', operation: 'bridge-deposit', ref: record.id },
            lease: { walletId: wallet.id, owner, seconds: walletConfig.WALLET_LOCK_SECONDS },
            answer: (txHash) => ({ ...answer(submitted ?? record), ...submittedMove(chain, txHash) }),
          }),
        ),
      ),
    );
  } catch (e) {
    if (signature === undefined) throw e;
    if (e instanceof MoveUnsettled) {
      // Sent, not settled: the journal holds the wallet and the Idempotency-Key for it, and the
      // relayer waits for the journal's settlement (relayer.ts) before it credits or fails the record.
      logger.warn('bridge: deposit sent, outcome unknown; the journal settles it', { bridgeId: record.id, signature });
      return { ...answer(submitted ?? record), ...submittedMove(chain, signature) };
    }
    if (!(isAppError(e) && e.code === 'RPC_ERROR')) {
      // Handed to chain A and refused there: the record says so (failed), the caller gets the reason.
      const failureReason = e instanceof Error ? e.message : 'the source transaction failed';
      await failBridge(record, { from: ['submitted'], at: clock.now().toISOString(), failureReason, sourceTxHash: signature });
      throw e;
    }
    // Sent, but chain A did not say whether it landed (its node unreachable, or no confirmation in
    // time). Failing the record could strand coins in the escrow: the record has the signature
    // and the relayer decides as for an attached transaction — completed once it is found
    // confirmed, failed if it never shows within the confirmation window.
    logger.warn('bridge: deposit sent, outcome unknown; left to the relayer', { bridgeId: record.id, signature });
  }
  return answer(submitted ?? record);
}

/** A withdrawal chain B → chain A: destAddress on chain A, the service signing with the caller's chain B wallet when walletId is given. */
async function initiateWithdraw(userId: string, input: z.infer<typeof initiateInput>, route: HyperlaneToken) {
  const destAddress = chainAAddress(input.destAddress);
  const units = parseAmount(input.amount, route.decimals, U64_MAX);
  if (input.walletId !== undefined && input.password === undefined) throw errors.invalidInput('password: is required to sign with your chain B wallet');
  if (input.walletId === undefined && input.password !== undefined)
    throw errors.invalidInput('password: only a withdrawal from a chain B wallet (walletId) takes a password');
  const wallet = input.walletId === undefined ? undefined : await ownedWallet(userId, input.walletId);
  if (wallet && wallet.chain !== 'b') throw errors.invalidInput('walletId: a withdrawal needs a chain B wallet');
  const record = newRecord(userId, {
    bridgeType: 'chaina-chainb',
    direction: 'withdraw',
    token: input.token,
    amount: input.amount,
    amountUnits: units,
    destAddress,
    walletId: wallet?.id ?? null,
  });
  // Sent by the service: the record is written once the wallet has accepted the password (withdraw.ts).
  if (!wallet) await insertBridge(record);
  const side = await chainSide();
  const answer = (r: BridgeRecord) => ({ transaction: view(r), bridgeUrl: bridgeUrl('chaina-chainb'), instructions: instructions(side, r) });
  if (!wallet) return answer(record);
  // Sent, not settled: 202 naming the transaction (the journal holds the wallet and the key for it).
  const sent = await side.sendWithdraw(record, wallet, input.password!, route, (r, txHash) => ({ ...answer(r), ...submittedB(txHash) }));
  return sent.unsettled ? { ...answer(sent.record), ...submittedB(sent.unsettled) } : answer(sent.record);
}

function newRecord(
  userId: string,
  r: Pick<BridgeRecord, 'bridgeType' | 'direction' | 'token' | 'amount' | 'destAddress' | 'walletId'> & { amountUnits: bigint },
): BridgeRecord {
  const now = clock.nowMs();
  const at = new Date(now).toISOString();
  return {
    id: randomUUID(),
    userId,
    ...r,
    amountUnits: r.amountUnits.toString(),
    status: 'pending',
    sourceTxHash: null,
    destTxHash: null,
    messageId: null,
    failureReason: null,
    createdAt: at,
    updatedAt: at,
    expiresAt: new Date(now + SOURCE_WINDOW_MS).toISOString(),
    submittedAt: null,
    history: [{ status: 'pending', at }],
  };
}

const bridgeUrl = (t: BridgeType) => (t === 'chaina-chainb' ? 'https://nexus.hyperlane.xyz' : 'https://starkgate.starknet.io');

function instructions({ escrowAccount, memoOf, withdrawInstructions }: ChainSide, r: BridgeRecord): { step1: string; step2: string; step3: string } {
  if (r.direction === 'withdraw') return withdrawInstructions(r);
  const step3 = `Follow GET /api/bridge/status/${r.id}: submitted → source_confirmed → completed when the ${r.token} is credited to ${r.destAddress} on chain B.`;
  if (r.bridgeType === 'chaina-chainb') {
    const route = routeToken('chaina-chainb', r.token)!;
    if (r.sourceTxHash) {
      return {
        step1: `Sent: ${r.amount} ${r.token} from your chain A wallet into the ${route.warpRouteId} warp route's escrow (transaction ${r.sourceTxHash}).`,
        step2: 'Nothing to do: the relayer confirms the transaction on chain A and delivers the message to chain B.',
        step3,
      };
    }
    const escrow = escrowAccount(route).toBase58();
    const what = route.originMint
      ? `${r.amountUnits} smallest units of the SPL token ${route.originMint} (TransferChecked, ${route.decimals} decimals)`
      : `${r.amountUnits} lamports`;
    return {
      step1: `On chain A, in one transaction, send ${what} to ${escrow} (the ${route.warpRouteId} warp route's escrow) with the SPL Memo "${memoOf(r.id)}", before ${r.expiresAt}.`,
      step2: `POST /api/bridge/${r.id}/source-tx {"txHash": "<the transaction signature>"}.`,
      step3,
    };
  }
  const route = routeToken('ethereum-chainb', r.token)!;
  return {
    step1: `On Ethereum, call deposit(${route.l1Token}, ${r.amountUnits}, ${r.destAddress}) on the StarkGate bridge ${route.l1Bridge} (approve it first for ERC-20 tokens; send the L1→L2 message fee as value, plus the amount for ETH), before ${r.expiresAt}.`,
    step2: `POST /api/bridge/${r.id}/source-tx {"txHash": "<the Ethereum transaction hash>"}.`,
    step3: `The Starknet sequencer delivers the message to the L2 bridge ${route.l2Bridge}, which mints ${route.l2Token} to ${r.destAddress}; follow GET /api/bridge/status/${r.id}.`,
  };
}

/** The caller's record, with its expiry applied; 404 BRIDGE_NOT_FOUND for unknown and foreign alike. */
async function ownedBridge(userId: string, id: string): Promise<BridgeRecord> {
  const r = z.uuid().safeParse(id).success ? await readBridge(userId, id) : undefined;
  if (!r) throw errors.bridgeNotFound();
  return (await expireIfDue(r)) ?? r;
}

/** pending past its expiresAt → expired (conditional: a source transaction attached meanwhile wins). */
export async function expireIfDue(r: BridgeRecord): Promise<BridgeRecord | undefined> {
  if (r.status !== 'pending' || Date.parse(r.expiresAt) > clock.nowMs()) return undefined;
  return (await transitionBridge(r.userId, r.id, { from: ['pending'], to: 'expired', at: clock.now().toISOString() })) ?? (await readBridge(r.userId, r.id));
}

export async function bridgeStatus(userId: string, id: string) {
  return { transaction: view(await ownedBridge(userId, id)) };
}

export async function bridgeHistory(userId: string) {
  const records = await listBridges(userId);
  const current = await Promise.all(records.map(async (r) => (await expireIfDue(r)) ?? r));
  return { transactions: current.map(view) };
}

const conflict = (r: BridgeRecord, what: string) => errors.bridgeStateConflict(`${what}: the transfer is ${r.status}`);

export async function attachSourceTx(userId: string, id: string, input: z.infer<typeof sourceTxInput>) {
  const r = await ownedBridge(userId, id);
  const txHash = r.direction === 'withdraw' ? chainBTxHash(input.txHash) : sourceTxHash(r.bridgeType, input.txHash);
  if (r.status !== 'pending') throw conflict(r, 'source-tx');
  // Reserved only for the record it names (test/api/bridge.test.ts, front-running): one on its chain that is another's is refused here.
  const verdict = await (await chainSide()).sourceVerdict(r, txHash);
  if (verdict.kind === 'mismatch') throw errors.invalidInput(`txHash: not this transfer's source transaction: ${verdict.reason}`);
  const outcome = await attachSource(userId, r, txHash, clock.now().toISOString());
  if (outcome === 'source-taken') {
    throw errors.conflict(
      'txHash: this transaction is already attached to a bridge transfer (if that transfer is not its own, the relayer fails it and releases the transaction: try again in a minute)',
    );
  }
  const now = (await readBridge(userId, id))!;
  if (outcome === 'state') throw conflict(now, 'source-tx');
  return { transaction: view(now) };
}

export async function cancelBridge(userId: string, id: string) {
  const r = await ownedBridge(userId, id);
  if (r.status !== 'pending') throw conflict(r, 'cancel');
  const done = await transitionBridge(userId, id, { from: ['pending'], to: 'cancelled', at: clock.now().toISOString() });
  if (!done) throw conflict((await readBridge(userId, id))!, 'cancel');
  return { transaction: view(done) };
}
