import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { db, tableName } from '#lib/data/client.ts';
import { decoder, queryAll, readItem, transactWrite } from '#lib/data/items.ts';

/**
 * The embedded chain B's state (lib/chains/chain-b/local.ts): the registry contract's storage,
 * its events and the transactions that changed it (no TTL: a ledger forgets nothing).
 *
 *   CHAINB#ACCOUNT#<address> / NONCE               { value }  the account's next nonce (ADD, atomic)
 *   CHAINB#CHAIN / HEAD                            { value }  the latest block number (one tx per block)
 *   CHAINB#REG#<registry> / PROOF#<proof_id>       RegistryProof
 *   CHAINB#REG#<registry> / EVENT#<block>#<tx>     RegistryEvent (ProofStored, with its raw keys/data felts)
 *   CHAINB#TX#<hash> / TX                          LedgerTransaction
 *   CHAINB#BLOCK#<block> / TX#<hash>               { sender, nonce } (an INVOKE's)  the block's transactions (one per block;
 *                                                             none for a refused one)
 *   CHAINB#ACCOUNT#<address> / NONCE@<block>       { value }  the account's next nonce after that block, what
 *                                                             starknet_getNonce at a block answers (state-table.ts writes it)
 */
const felt = z.string();

const registryProofSchema = z.object({
  proof_id: felt,
  proof_hash: felt,
  zk_id: felt,
  owner: felt,
  timestamp: z.number(),
  blockNumber: z.number(),
  transactionHash: felt,
});
export type RegistryProof = z.infer<typeof registryProofSchema>;
export const registryProofDecoder = decoder('chain B registry proof', registryProofSchema);

const registryEventSchema = registryProofSchema.extend({ keys: z.array(felt), data: z.array(felt) });
export type RegistryEvent = z.infer<typeof registryEventSchema>;
export const registryEventDecoder = decoder('chain B registry event', registryEventSchema);

const resourceBoundSchema = z.object({ max_amount: z.string(), max_price_per_unit: z.string() });
const eventSchema = z.object({ fromAddress: felt, keys: z.array(felt), data: z.array(felt) });
export type LedgerEvent = z.infer<typeof eventSchema>;

/**
 * A transaction of the embedded chain: the registry's INVOKEs, and (lib/chains/chain-b/ledger.ts)
 * the accounts' DEPLOY_ACCOUNT and INVOKE v3, the bridge's L1_HANDLER mints and the localnet
 * faucet's MINTs. Amounts (fees, bounds) are decimal strings: DynamoDB numbers hold 38 digits.
 */
const transactionSchema = z.object({
  transactionHash: felt,
  type: z.enum(['INVOKE', 'DEPLOY_ACCOUNT', 'L1_HANDLER', 'MINT']),
  version: z.enum(['0x3', '0x0']),
  senderAddress: felt,
  nonce: felt,
  chainId: z.string(),
  calls: z.array(z.object({ contractAddress: felt, entrypoint: z.string(), calldata: z.array(felt) })),
  signature: z.array(felt),
  blockNumber: z.number(),
  timestamp: z.number(),
  executionStatus: z.enum(['SUCCEEDED', 'REVERTED']),
  revertReason: z.string().optional(),
  resourceBounds: z.object({ l1_gas: resourceBoundSchema, l2_gas: resourceBoundSchema, l1_data_gas: resourceBoundSchema }).optional(),
  tip: z.string().optional(),
  /** The fee actually charged, in FRI (10^-18 STRK), a decimal string. */
  actualFee: z.string().optional(),
  classHash: felt.optional(),
  contractAddressSalt: felt.optional(),
  constructorCalldata: z.array(felt).optional(),
  messageId: z.string().optional(),
  events: z.array(eventSchema).optional(),
});
export type LedgerTransaction = z.infer<typeof transactionSchema>;
export const ledgerTransactionDecoder = decoder('chain B transaction', transactionSchema);

const counterDecoder = decoder('chain B counter', z.object({ value: z.number() }));

const registryPartition = (registry: string) => `CHAINB#REG#${registry}`;
const proofKey = (registry: string, proofId: string) => ({ pk: registryPartition(registry), sk: `PROOF#${proofId}` });
const pad = (n: number) => String(n).padStart(12, '0');
const eventKey = (registry: string, e: RegistryEvent) => ({ pk: registryPartition(registry), sk: `EVENT#${pad(e.blockNumber)}#${e.transactionHash}` });
export const txKey = (hash: string) => ({ pk: `CHAINB#TX#${hash}`, sk: 'TX' });
const blockPartition = (block: number) => `CHAINB#BLOCK#${pad(block)}`;
/** The item naming a transaction in its block, written with the transaction (an INVOKE's with its sender and nonce, as a node lists it). */
export const blockTxItem = (tx: Pick<LedgerTransaction, 'blockNumber' | 'transactionHash' | 'type' | 'senderAddress' | 'nonce'>) => ({
  pk: blockPartition(tx.blockNumber),
  sk: `TX#${tx.transactionHash}`,
  ...(tx.type === 'INVOKE' ? { sender: tx.senderAddress, nonce: tx.nonce } : {}),
});
/** The account's nonce as of `block`, written with each transaction that changes it. */
export const nonceAtItem = (account: string, block: number, value: number) => ({ pk: `CHAINB#ACCOUNT#${account}`, sk: `NONCE@${pad(block)}`, value });
const nonceKey = (account: string) => ({ pk: `CHAINB#ACCOUNT#${account}`, sk: 'NONCE' });
const headKey = { pk: 'CHAINB#CHAIN', sk: 'HEAD' };

/** ADD 1 to a counter; its new value (the first increment answers 1). */
async function increment(key: { pk: string; sk: string }): Promise<number> {
  const out = await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: key,
      UpdateExpression: 'ADD #v :one',
      ExpressionAttributeNames: { '#v': 'value' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  if (!out.Attributes) throw new Error('chain B counter: DynamoDB returned no value');
  return counterDecoder.decode(out.Attributes).value;
}

/** Takes the account's next nonce atomically (the nonce this transaction uses). */
export const takeAccountNonce = async (account: string): Promise<number> => (await increment(nonceKey(account))) - 1;
/** The account's next nonce, without taking it. */
export const peekAccountNonce = async (account: string): Promise<number> => (await readItem(nonceKey(account), counterDecoder))?.value ?? 0;
/** A new block number (one transaction per block). */
export const nextBlockNumber = (): Promise<number> => increment(headKey);
/** The latest block number (0 before the first transaction). */
export const headBlockNumber = async (): Promise<number> => (await readItem(headKey, counterDecoder))?.value ?? 0;

const blockTxDecoder = decoder('chain B block transaction', z.object({ sk: z.string(), sender: felt.optional(), nonce: felt.optional() }));

/**
 * The transactions of block `block` (starknet_getBlockWithTxs), an INVOKE's with its sender and
 * nonce. Read consistently, as the nonce history is: an eventually consistent Query may miss a
 * transaction whose NONCE@ another replica already answered, and its block would read as another's.
 */
export async function listBlockTransactions(block: number): Promise<{ hash: string; sender?: string; nonce?: bigint }[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': blockPartition(block), ':prefix': 'TX#' },
    ConsistentRead: true,
  });
  return items.map((i) => {
    const t = blockTxDecoder.decode(i);
    const hash = t.sk.slice('TX#'.length);
    return t.sender !== undefined && t.nonce !== undefined ? { hash, sender: t.sender, nonce: BigInt(t.nonce) } : { hash };
  });
}

/**
 * The account's next nonce as of block `block`: the latest NONCE@ at or before it. Before its first
 * entry: 0 when that entry is its deployment's (nonce 1), one less for the block just before it
 * (one transaction per block). Undefined when the history cannot tell: none at all (an account
 * never deployed, or one from before this history was kept), or asked of a block further back.
 */
export async function readNonceAt(account: string, block: number): Promise<number | undefined> {
  const pk = `CHAINB#ACCOUNT#${account}`;
  const entry = async (newestFirst: boolean, to: string) =>
    (
      await db.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': pk, ':from': 'NONCE@', ':to': to },
          ScanIndexForward: !newestFirst,
          Limit: 1,
          ConsistentRead: true,
        }),
      )
    ).Items?.[0];
  const at = await entry(true, `NONCE@${pad(block)}`);
  if (at) return counterDecoder.decode(at).value;
  const first = await entry(false, 'NONCE@~');
  if (!first) return undefined;
  const value = counterDecoder.decode(first).value;
  if (value === 1) return 0;
  return String(first.sk) === `NONCE@${pad(block + 1)}` ? value - 1 : undefined;
}

/**
 * Applies a store_proof: the proof, its event and the transaction in one transaction. False when
 * the proof id is taken (a lost race: the caller records the reverted transaction).
 */
export async function applyStoreProof(registry: string, proof: RegistryProof, event: RegistryEvent, tx: LedgerTransaction): Promise<boolean> {
  const failed = await transactWrite([
    { Put: { TableName: tableName, Item: { ...proofKey(registry, proof.proof_id), ...proof }, ConditionExpression: 'attribute_not_exists(pk)' } },
    { Put: { TableName: tableName, Item: { ...eventKey(registry, event), ...event } } },
    { Put: { TableName: tableName, Item: { ...txKey(tx.transactionHash), ...tx } } },
    { Put: { TableName: tableName, Item: blockTxItem(tx) } },
  ]);
  return failed === -1;
}

export async function putTransaction(tx: LedgerTransaction): Promise<void> {
  await transactWrite([
    { Put: { TableName: tableName, Item: { ...txKey(tx.transactionHash), ...tx } } },
    { Put: { TableName: tableName, Item: blockTxItem(tx) } },
  ]);
}

export const getTransaction = (hash: string): Promise<LedgerTransaction | undefined> => readItem(txKey(hash), ledgerTransactionDecoder);

export const getRegistryProof = (registry: string, proofId: string): Promise<RegistryProof | undefined> =>
  readItem(proofKey(registry, proofId), registryProofDecoder);

/** The registry's events from `fromBlock` on, oldest first. */
export async function listRegistryEvents(registry: string, fromBlock: number): Promise<RegistryEvent[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': registryPartition(registry), ':from': `EVENT#${pad(fromBlock)}`, ':to': 'EVENT#~' },
  });
  return items.map((i) => registryEventDecoder.decode(i));
}
