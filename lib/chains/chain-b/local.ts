import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ec, hash, stark, type constants } from 'starknet';
import { clock } from '#lib/clock.ts';
import { db, tableName } from '#lib/data/client.ts';
import { getItem, isConditionalFailure, putItem, queryAll } from '#lib/data/items.ts';
import { toHex, toHex64 } from './felts.ts';
import {
  checkStoreProof,
  invokeV3Hash,
  LOCAL_RESOURCE_BOUNDS,
  PROOF_STORED_SELECTOR,
  RegistryRevert,
  storeProofCall,
  type ProofRegistry,
  type ProofStoredEvent,
  type StoreProofArgs,
  type StoredProof,
} from './registry.ts';

/**
 * The embedded chain B: the registry's exact semantics over DynamoDB. Chain B has no offline
 * devnet, so the contract's state (proofs), its events and the transactions that changed it are
 * items of the project's table; what is real is the cryptography: each store_proof is an INVOKE
 * v3 transaction of the server's account whose hash is Starknet's transaction hash of that very
 * call (`invokeV3Hash`), with the account's nonce taken atomically from a counter, signed with
 * the server's Stark key. Items:
 *
 *   CHAINB#ACCOUNT#<address> / NONCE               the account's next nonce (ADD, atomic)
 *   CHAINB#CHAIN / HEAD                            the latest block number (one tx per block)
 *   CHAINB#REG#<registry> / PROOF#<proof_id>       Proof {proof_hash, zk_id, owner, timestamp}
 *   CHAINB#REG#<registry> / EVENT#<block>#<tx>     ProofStored, with its raw keys/data felts
 *   CHAINB#TX#<hash> / TX                          the transaction: calldata, nonce, signature
 */

/** Class hashes of the emulated contracts (there is no declared class locally; these name them). */
export const LOCAL_ACCOUNT_CLASS_HASH = toHex(hash.starknetKeccak('shroud-local-account'));
export const LOCAL_REGISTRY_CLASS_HASH = toHex(hash.starknetKeccak('shroud-proof-registry'));

export interface LocalKeys {
  privateKey: string;
  accountAddress: string;
  registryAddress: string;
}

/** The account address a deploy_account of the local account class with this key would get. */
export function localAccountAddress(privateKey: string): string {
  const pub = ec.starkCurve.getStarkKey(privateKey);
  return toHex64(hash.calculateContractAddressFromHash(pub, LOCAL_ACCOUNT_CLASS_HASH, [pub], 0));
}

/** The registry address: deployed by the server account, salt 0, no constructor arguments. */
export const localRegistryAddress = (accountAddress: string): string =>
  toHex64(hash.calculateContractAddressFromHash(0, LOCAL_REGISTRY_CLASS_HASH, [], accountAddress));

export function keysFromPrivateKey(privateKey: string, registryAddress?: string): LocalKeys {
  const accountAddress = localAccountAddress(privateKey);
  return { privateKey, accountAddress, registryAddress: registryAddress ? toHex64(registryAddress) : localRegistryAddress(accountAddress) };
}

/**
 * The server's local Stark key: generated once into `<dataDir>/chainb/account.json` (mode 0600,
 * created exclusively so two processes starting together agree on one key), then reused, so
 * addresses and signatures survive restarts. Never logged, never returned by any route.
 */
export function loadOrCreateLocalKeys(dataDir: string): LocalKeys {
  const dir = join(dataDir, 'chainb');
  const file = join(dir, 'account.json');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    const privateKey = toHex64(`0x${Buffer.from(ec.starkCurve.utils.randomPrivateKey()).toString('hex')}`);
    writeFileSync(file, JSON.stringify(keysFromPrivateKey(privateKey), null, 2), { flag: 'wx', mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const stored = JSON.parse(readFileSync(file, 'utf8')) as LocalKeys;
  return keysFromPrivateKey(stored.privateKey, stored.registryAddress);
}

export interface LocalTransaction {
  transactionHash: string;
  type: 'INVOKE';
  version: '0x3';
  senderAddress: string;
  nonce: string;
  chainId: string;
  calls: { contractAddress: string; entrypoint: string; calldata: string[] }[];
  signature: [string, string];
  blockNumber: number;
  timestamp: number;
  executionStatus: 'SUCCEEDED';
}

const pad = (n: number) => String(n).padStart(12, '0');

export class LocalProofRegistry implements ProofRegistry {
  readonly adapter = 'local' as const;
  readonly address: string;
  readonly accountAddress: string;
  /** The account's full (uncompressed) public key, for anyone verifying its transaction signatures. */
  readonly accountPublicKey: string;
  readonly #privateKey: string;
  readonly #pk: string;

  constructor(keys: LocalKeys, readonly chainId: constants.StarknetChainId) {
    this.address = keys.registryAddress;
    this.accountAddress = keys.accountAddress;
    this.accountPublicKey = stark.getFullPublicKey(keys.privateKey);
    this.#privateKey = keys.privateKey;
    this.#pk = `CHAINB#REG#${this.address}`;
  }

  async storeProof(args: StoreProofArgs): Promise<{ txHash: string }> {
    checkStoreProof(args);
    // As a node's fee estimation would: a call that reverts is refused before it takes a nonce.
    if (await this.verifyProofExists(args.proofId)) throw new RegistryRevert('proof already exists');
    const nonce = BigInt((await this.#increment(`CHAINB#ACCOUNT#${this.accountAddress}`, 'NONCE')) - 1);
    const blockNumber = await this.#increment('CHAINB#CHAIN', 'HEAD');
    const timestamp = clock.nowSeconds();
    const call = storeProofCall(this.address, args);
    const txHash = toHex64(
      invokeV3Hash({ senderAddress: this.accountAddress, calls: [call], nonce, chainId: this.chainId, resourceBounds: LOCAL_RESOURCE_BOUNDS }),
    );
    const sig = ec.starkCurve.sign(txHash, this.#privateKey);
    const proof: StoredProof = {
      proof_id: toHex64(args.proofId),
      proof_hash: toHex64(args.proofHash),
      zk_id: toHex64(args.zkId),
      owner: this.accountAddress,
      timestamp,
    };
    const event = {
      ...proof,
      blockNumber,
      transactionHash: txHash,
      keys: [PROOF_STORED_SELECTOR, proof.proof_id],
      data: [proof.proof_hash, proof.zk_id, proof.owner, toHex(timestamp)],
    };
    const tx: LocalTransaction = {
      transactionHash: txHash,
      type: 'INVOKE',
      version: '0x3',
      senderAddress: this.accountAddress,
      nonce: toHex(nonce),
      chainId: this.chainId,
      calls: [{ contractAddress: call.contractAddress, entrypoint: call.entrypoint, calldata: (call.calldata as string[]).map((x) => toHex(x)) }],
      signature: [toHex(sig.r), toHex(sig.s)],
      blockNumber,
      timestamp,
      executionStatus: 'SUCCEEDED',
    };
    try {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName,
                Item: { pk: this.#pk, sk: `PROOF#${proof.proof_id}`, ...proof, blockNumber, transactionHash: txHash },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            { Put: { TableName: tableName, Item: { pk: this.#pk, sk: `EVENT#${pad(blockNumber)}#${txHash}`, ...event } } },
            { Put: { TableName: tableName, Item: { pk: `CHAINB#TX#${txHash}`, sk: 'TX', ...tx } } },
          ],
        }),
      );
    } catch (e) {
      if (!isConditionalFailure(e)) throw e;
      // Lost a race for the same proof_id: on chain the transaction is included and reverts.
      await putItem({ pk: `CHAINB#TX#${txHash}`, sk: 'TX', ...tx, executionStatus: 'REVERTED', revertReason: 'proof already exists' });
      throw new RegistryRevert('proof already exists');
    }
    return { txHash };
  }

  async getProof(proofId: bigint): Promise<StoredProof | null> {
    const item = await getItem({ pk: this.#pk, sk: `PROOF#${toHex64(proofId)}` });
    if (!item) return null;
    const { proof_id, proof_hash, zk_id, owner, timestamp } = item as unknown as StoredProof;
    return { proof_id, proof_hash, zk_id, owner, timestamp: Number(timestamp) };
  }

  async verifyProofExists(proofId: bigint): Promise<boolean> {
    return (await this.getProof(proofId)) !== null;
  }

  async getEvents(opts: { fromBlock?: number; proofId?: bigint } = {}): Promise<ProofStoredEvent[]> {
    const items = await queryAll({
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': this.#pk, ':from': `EVENT#${pad(opts.fromBlock ?? 0)}`, ':to': 'EVENT#~' },
    });
    const wanted = opts.proofId === undefined ? undefined : toHex64(opts.proofId);
    return items
      .filter((e) => !wanted || e.proof_id === wanted)
      .map((e) => ({
        proof_id: String(e.proof_id),
        proof_hash: String(e.proof_hash),
        zk_id: String(e.zk_id),
        owner: String(e.owner),
        timestamp: Number(e.timestamp),
        blockNumber: Number(e.blockNumber),
        transactionHash: String(e.transactionHash),
      }));
  }

  async getTransaction(txHash: string): Promise<LocalTransaction | null> {
    const item = await getItem({ pk: `CHAINB#TX#${toHex64(txHash)}`, sk: 'TX' });
    if (!item) return null;
    const { pk: _p, sk: _s, ...tx } = item;
    return tx as unknown as LocalTransaction;
  }

  /** The account's next nonce (what starknet_getNonce would answer). */
  async getNonce(): Promise<bigint> {
    const item = await getItem({ pk: `CHAINB#ACCOUNT#${this.accountAddress}`, sk: 'NONCE' });
    return BigInt(Number(item?.value ?? 0));
  }

  async #increment(pk: string, sk: string): Promise<number> {
    const out = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk, sk },
        UpdateExpression: 'ADD #v :one',
        ExpressionAttributeNames: { '#v': 'value' },
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(out.Attributes?.value);
  }
}
