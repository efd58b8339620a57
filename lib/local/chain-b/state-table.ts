import * as z from 'zod';
import { tableName } from '#lib/data/client.ts';
import { decoder, getItem, putNew, queryPartition, readItem, transactWrite, isConditionalFailure, type TransactItems } from '#lib/data/items.ts';
import { blockTxItem, nonceAtItem, txKey, type LedgerTransaction } from './ledger-table.ts';

/**
 * The embedded chain B's contract state beyond the registry (lib/chains/chain-b/ledger.ts has the
 * semantics): ERC-20 balances, deployed accounts with their nonces, the bridge messages already
 * minted, and the fees the sequencer collected. No TTL: a ledger forgets nothing.
 *
 *   CHAINB#BAL#<holder> / TOKEN#<token>       { balance }            decimal string (u256 fits; 38-digit numbers do not)
 *   CHAINB#ACCOUNT#<address> / ACCOUNT        { classHash, publicKey, nonce, deployTxHash }
 *   CHAINB#MSG#<messageId> / MINT             { txHash }             a bridge message, minted once
 *   CHAINB#TOKEN#<token> / META               { symbol, name, decimals }   tokens beyond the built-in STRK and ETH
 *   CHAINB#FEES#<token> / SHARD#<n>           { hi, lo }             fees collected (hi·10^9 + lo), spread over shards so that
 *                                                                   parallel transactions do not contend on one item
 *   CHAINB#SUPPLY#<token> / SHARD#<n>         { supply }             the ERC-20's total_supply: Σ shards, each a decimal string
 *                                                                   changed by mints and burns, conditioned on the value read (exact u256)
 *   CHAINB#WARP#<router> / ROUTER             { token, mailbox, localDomain, routers }   a Hyperlane warp route's storage:
 *                                                                   its token and the remote routers it enrolled (domain → bytes32)
 *   CHAINB#MAILBOX#<mailbox> / NONCE          { next }               the Mailbox's dispatch nonce, conditioned on the value read
 *
 * Every transaction is applied by `applyLedgerWrite`: one TransactWriteItems holding each balance
 * it changes (conditioned on the balance it read), the account's nonce (conditioned on the nonce
 * it read), the bridge message (only if new) and the transaction record. A concurrent change to any
 * of them cancels the whole write: nothing is half-applied, no nonce is used twice, no balance
 * goes below what was read.
 */
const balanceSchema = z.object({ balance: z.string().regex(/^\d+$/) });
const balanceDecoder = decoder('chain B balance', balanceSchema);

const accountSchema = z.object({ classHash: z.string(), publicKey: z.string(), nonce: z.number().int().min(0), deployTxHash: z.string() });
export type LedgerAccount = z.infer<typeof accountSchema>;
const accountDecoder = decoder('chain B account', accountSchema);

const mintSchema = z.object({ txHash: z.string() });
const mintDecoder = decoder('chain B bridge message', mintSchema);

const tokenSchema = z.object({ symbol: z.string(), name: z.string(), decimals: z.number().int().min(0).max(255) });
export type LedgerTokenMeta = z.infer<typeof tokenSchema>;
const tokenDecoder = decoder('chain B token', tokenSchema);

const feeShardDecoder = decoder('chain B fee shard', z.object({ hi: z.number().int(), lo: z.number().int() }));
const FEE_SPLIT = 10n ** 9n;

const balanceKey = (holder: string, token: string) => ({ pk: `CHAINB#BAL#${holder}`, sk: `TOKEN#${token}` });
const accountKey = (address: string) => ({ pk: `CHAINB#ACCOUNT#${address}`, sk: 'ACCOUNT' });
const messageKey = (messageId: string) => ({ pk: `CHAINB#MSG#${messageId}`, sk: 'MINT' });
const tokenKey = (token: string) => ({ pk: `CHAINB#TOKEN#${token}`, sk: 'META' });
const feesPartition = (token: string) => `CHAINB#FEES#${token}`;
export const FEE_SHARDS = 16;
const supplyPartition = (token: string) => `CHAINB#SUPPLY#${token}`;
const supplyKey = (token: string, shard: number) => ({ pk: supplyPartition(token), sk: `SHARD#${shard}` });
/** Parallel mints of one token (faucet airdrops) pick a random shard, so that they rarely contend. */
export const SUPPLY_SHARDS = 16;
const supplyDecoder = decoder('chain B supply shard', z.object({ supply: z.string().regex(/^\d+$/) }));

const warpSchema = z.object({
  token: z.string(),
  mailbox: z.string(),
  localDomain: z.number().int(),
  /** Remote domain (decimal string) → the remote router as 0x + 64 hex digits. */
  routers: z.record(z.string(), z.string()),
});
export type LedgerWarpRoute = z.infer<typeof warpSchema>;
const warpDecoder = decoder('chain B warp route', warpSchema);
const warpKey = (router: string) => ({ pk: `CHAINB#WARP#${router}`, sk: 'ROUTER' });
const mailboxKey = (mailbox: string) => ({ pk: `CHAINB#MAILBOX#${mailbox}`, sk: 'NONCE' });
const mailboxDecoder = decoder('chain B mailbox nonce', z.object({ next: z.number().int().min(0) }));

export const readWarpRoute = (router: string): Promise<LedgerWarpRoute | undefined> => readItem(warpKey(router), warpDecoder);

/** Deploys a warp route's storage once (what its deployment and `enroll_remote_router` leave); the first write wins. */
export async function enrollWarpRoute(router: string, route: LedgerWarpRoute): Promise<void> {
  try {
    await putNew({ ...warpKey(router), ...route });
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
  }
}

/** The Mailbox's next dispatch nonce (0 before its first message). */
export async function readMailboxNonce(mailbox: string): Promise<number> {
  return (await readItem(mailboxKey(mailbox), mailboxDecoder))?.next ?? 0;
}

/** Every written shard of a token's total supply (a burn takes from several when one is short). */
export async function readSupplyShards(token: string): Promise<{ shard: number; supply: bigint }[]> {
  const items = await queryPartition(supplyPartition(token));
  return items.map((i) => ({ shard: Number(String(i.sk).slice('SHARD#'.length)), supply: BigInt(supplyDecoder.decode(i).supply) }));
}

/** One shard of a token's total supply (0 when never written). */
export async function readSupplyShard(token: string, shard: number): Promise<bigint> {
  const item = await readItem(supplyKey(token, shard), supplyDecoder);
  return item ? BigInt(item.supply) : 0n;
}

/** A token's total supply as the ledger's mints made it (the sum of the shards). */
export async function readTotalSupply(token: string): Promise<bigint> {
  const items = await queryPartition(supplyPartition(token));
  return items.reduce((sum, i) => sum + BigInt(supplyDecoder.decode(i).supply), 0n);
}

/** A holder's stored balance of a token (0 when it never held any). */
export async function readBalance(holder: string, token: string): Promise<bigint> {
  const item = await readItem(balanceKey(holder, token), balanceDecoder);
  return item ? BigInt(item.balance) : 0n;
}

/** The fees collected in `token` (the sum of the shards). */
export async function readCollectedFees(token: string): Promise<bigint> {
  const items = await queryPartition(feesPartition(token));
  return items.reduce((sum, i) => {
    const { hi, lo } = feeShardDecoder.decode(i);
    return sum + BigInt(hi) * FEE_SPLIT + BigInt(lo);
  }, 0n);
}

export const readAccount = (address: string): Promise<LedgerAccount | undefined> => readItem(accountKey(address), accountDecoder);

export const readTokenMeta = (token: string): Promise<LedgerTokenMeta | undefined> => readItem(tokenKey(token), tokenDecoder);

/** Records a token's metadata once (the first registration wins). */
export async function registerTokenMeta(token: string, meta: LedgerTokenMeta): Promise<void> {
  try {
    await putNew({ ...tokenKey(token), ...meta });
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
  }
}

/** The transaction a bridge message was minted in, if it was. */
export async function readMintedMessage(messageId: string): Promise<string | undefined> {
  const item = await getItem(messageKey(messageId));
  return item ? mintDecoder.decode(item).txHash : undefined;
}

export interface BalanceWrite {
  holder: string;
  token: string;
  /** The balance read before (0 also matches a holder with no item). */
  before: bigint;
  after: bigint;
}

export type AccountWrite =
  | { kind: 'deploy'; address: string; classHash: string; publicKey: string; deployTxHash: string; nonceAfter: number }
  | { kind: 'nonce'; address: string; nonceBefore: number; nonceAfter: number };

export interface LedgerWrite {
  balances: BalanceWrite[];
  account?: AccountWrite;
  /** Fees to the sequencer (added to one shard of its collected fees). */
  fee?: { token: string; amount: bigint };
  /** The bridge message this mint consumes (exactly once). */
  messageId?: string;
  /** A mint's or burn's change of total-supply shards, each conditioned on the value read. */
  supply?: SupplyWrite[];
  /** The Mailbox nonces a dispatch used, conditioned on the value read. */
  mailbox?: { mailbox: string; before: number; after: number };
  tx: LedgerTransaction;
}

export interface SupplyWrite {
  token: string;
  shard: number;
  before: bigint;
  after: bigint;
}

/** What stopped a write: the item whose condition no longer held. */
export type WriteConflict = 'balance' | 'nonce' | 'message' | 'transaction';

/** Applies one transaction's effects atomically; null when applied, else what conflicted. */
export async function applyLedgerWrite(w: LedgerWrite): Promise<WriteConflict | null> {
  const items: TransactItems = [];
  const kinds: WriteConflict[] = [];
  for (const b of w.balances) {
    if (b.after < 0n) throw new Error('chain B ledger: a balance cannot go below zero');
    items.push({
      Put: {
        TableName: tableName,
        Item: { ...balanceKey(b.holder, b.token), balance: b.after.toString() },
        // An absent item is a zero balance.
        ConditionExpression: b.before === 0n ? 'attribute_not_exists(pk) OR #b = :before' : '#b = :before',
        ExpressionAttributeNames: { '#b': 'balance' },
        ExpressionAttributeValues: { ':before': b.before.toString() },
      },
    });
    kinds.push('balance');
  }
  if (w.account?.kind === 'deploy') {
    const a = w.account;
    items.push({
      Put: {
        TableName: tableName,
        Item: { ...accountKey(a.address), classHash: a.classHash, publicKey: a.publicKey, nonce: a.nonceAfter, deployTxHash: a.deployTxHash },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
    kinds.push('nonce');
  } else if (w.account?.kind === 'nonce') {
    items.push({
      Update: {
        TableName: tableName,
        Key: accountKey(w.account.address),
        UpdateExpression: 'SET #n = :after',
        ConditionExpression: '#n = :before',
        ExpressionAttributeNames: { '#n': 'nonce' },
        ExpressionAttributeValues: { ':before': w.account.nonceBefore, ':after': w.account.nonceAfter },
      },
    });
    kinds.push('nonce');
  }
  if (w.fee && w.fee.amount > 0n) {
    items.push({
      Update: {
        TableName: tableName,
        Key: { pk: feesPartition(w.fee.token), sk: `SHARD#${Math.floor(Math.random() * FEE_SHARDS)}` },
        // Split at 10^9 so that both running sums stay exact JavaScript numbers (< 2^53) for
        // billions of fees; the total is hi·10^9 + lo.
        UpdateExpression: 'ADD #hi :hi, #lo :lo',
        ExpressionAttributeNames: { '#hi': 'hi', '#lo': 'lo' },
        ExpressionAttributeValues: { ':hi': Number(w.fee.amount / FEE_SPLIT), ':lo': Number(w.fee.amount % FEE_SPLIT) },
      },
    });
    kinds.push('balance');
  }
  for (const u of w.supply ?? []) {
    if (u.after < 0n) throw new Error('chain B ledger: a total supply cannot go below zero');
    items.push({
      Put: {
        TableName: tableName,
        Item: { ...supplyKey(u.token, u.shard), supply: u.after.toString() },
        ConditionExpression: u.before === 0n ? 'attribute_not_exists(pk) OR #s = :before' : '#s = :before',
        ExpressionAttributeNames: { '#s': 'supply' },
        ExpressionAttributeValues: { ':before': u.before.toString() },
      },
    });
    kinds.push('balance');
  }
  if (w.mailbox) {
    const m = w.mailbox;
    items.push({
      Put: {
        TableName: tableName,
        Item: { ...mailboxKey(m.mailbox), next: m.after },
        ConditionExpression: m.before === 0 ? 'attribute_not_exists(pk) OR #n = :before' : '#n = :before',
        ExpressionAttributeNames: { '#n': 'next' },
        ExpressionAttributeValues: { ':before': m.before },
      },
    });
    // Another dispatch took this nonce: re-run on fresh state, as for a balance.
    kinds.push('balance');
  }
  if (w.messageId !== undefined) {
    items.push({
      Put: { TableName: tableName, Item: { ...messageKey(w.messageId), txHash: w.tx.transactionHash }, ConditionExpression: 'attribute_not_exists(pk)' },
    });
    kinds.push('message');
  }
  items.push({ Put: { TableName: tableName, Item: { ...txKey(w.tx.transactionHash), ...w.tx }, ConditionExpression: 'attribute_not_exists(pk)' } });
  kinds.push('transaction');
  // What a node serves of past blocks: the block's transactions, and the nonce the account had after it.
  items.push({ Put: { TableName: tableName, Item: blockTxItem(w.tx) } });
  kinds.push('transaction');
  if (w.account) {
    items.push({ Put: { TableName: tableName, Item: nonceAtItem(w.account.address, w.tx.blockNumber, w.account.nonceAfter) } });
    kinds.push('nonce');
  }
  const failed = await transactWrite(items);
  return failed === -1 ? null : kinds[failed]!;
}
