import { randomBytes } from 'node:crypto';
import { hash, shortString, type Call, type constants, type ResourceBoundsBN } from 'starknet';
import { readChainBConfig } from '#lib/chains/chain-b/config.ts';
import type { BridgeMint } from '#lib/chains/embedded.ts';
import { clock } from '#lib/clock.ts';
import {
  getTransaction,
  headBlockNumber,
  listBlockTransactions,
  nextBlockNumber,
  readNonceAt,
  type LedgerEvent,
  type LedgerTransaction,
} from '#lib/local/chain-b/ledger-table.ts';
import { CONFLICT, retryOnConflict } from '#lib/data/retry.ts';
import {
  applyLedgerWrite,
  enrollWarpRoute,
  readAccount,
  readBalance,
  readMailboxNonce,
  readCollectedFees,
  readMintedMessage,
  readSupplyShard,
  readTokenMeta,
  readTotalSupply,
  registerTokenMeta,
  SUPPLY_SHARDS,
  type AccountWrite,
} from '#lib/local/chain-b/state-table.ts';
import { accountAddress, deployAccountHash, invokeHash, OZ_ACCOUNT_CLASS_HASH, verifyStarkSignature } from '#lib/chains/chain-b/account.ts';
import { feeOf, insufficientBound, LOCAL_GAS_PRICES, LOCAL_GAS_USE, maxFeeOf, type GasUse } from '#lib/chains/chain-b/fees.ts';
import { toHex, toHex64 } from '#lib/chains/chain-b/felts.ts';
import { ACCOUNT_REVERTS, burnWrites, ERC20_REVERTS, executeCall, Revert, Working } from './contracts.ts';
import { builtinToken, FEE_TOKEN, isContractAddress, isFelt, transferEvent, U256_MAX, u256Felts, type TokenInfo } from '#lib/chains/chain-b/tokens.ts';

/**
 * The embedded chain B's accounts and ERC-20 tokens over DynamoDB (lib/data/chain-b-state.ts),
 * with the deployed contracts' semantics:
 *
 * - ERC-20 (OpenZeppelin v1.0.0, lib/chains/chain-b/erc20.cairo): `transfer(recipient, amount:
 *   u256)` reverts 'ERC20: transfer to 0', 'ERC20: insufficient balance' and (the recipient's
 *   balance past 2^256) 'u256_add Overflow'; a Transfer event
 *   {#[key] from, #[key] to, value}; mints emit Transfer from 0.
 * - Accounts (OpenZeppelin v1.0.0, `account.cairo`): DEPLOY_ACCOUNT at the counterfactual
 *   address, then INVOKE v3 through `__execute__`; `__validate__` checks the Stark signature over
 *   the transaction hash against the account's public key. A transaction that fails validation
 *   (signature, nonce, resource bounds, the fee balance) is refused and leaves no trace
 *   (`LedgerRejection`); one that fails in execution is included REVERTED: its state changes
 *   undone, its nonce used and its fee charged.
 * - Fees in STRK: Σ gas used × price (fees.ts), to the sequencer with a Transfer event.
 * - Hyperlane warp routes (synthetic, router = token): `transfer_remote` burns from the caller,
 *   lowers total_supply and dispatches the message through the Mailbox (contracts.ts).
 *
 * Each transaction is one DynamoDB transaction conditioned on every balance and nonce it read; a
 * concurrent change to a balance re-runs it on fresh state, a concurrent use of its nonce refuses it.
 */
export const SEQUENCER_ADDRESS = toHex64('0x01176a1bd84444c89232ec27754698e5d2e7e1a7f1539f12027f28b23ec9f3d8');

/** Why a node refuses a transaction before including it (Starknet JSON-RPC error names). */
export type RejectionCode =
  | 'VALIDATION_FAILURE'
  | 'INVALID_TRANSACTION_NONCE'
  | 'INSUFFICIENT_RESOURCES_FOR_VALIDATE'
  | 'INSUFFICIENT_ACCOUNT_BALANCE'
  | 'CONTRACT_NOT_FOUND'
  | 'CLASS_HASH_NOT_FOUND';

export class LedgerRejection extends Error {
  constructor(
    readonly code: RejectionCode,
    message: string,
  ) {
    super(message);
    this.name = 'LedgerRejection';
  }
}

export interface SignedInvoke {
  senderAddress: string;
  calls: Call[];
  nonce: bigint;
  resourceBounds: ResourceBoundsBN;
  tip: bigint;
  signature: string[];
}

export interface SignedDeployAccount {
  contractAddress: string;
  classHash: string;
  constructorCalldata: string[];
  addressSalt: string;
  nonce: bigint;
  resourceBounds: ResourceBoundsBN;
  tip: bigint;
  signature: string[];
}

export interface LedgerReceipt {
  transactionHash: string;
  executionStatus: 'SUCCEEDED' | 'REVERTED';
  revertReason?: string;
  actualFee: bigint;
  blockNumber: number;
  events: LedgerEvent[];
}

/** A balance write lost to a concurrent one is applied again from fresh reads (lib/data/retry.ts). */
const BALANCE_RETRY = { attempts: 13, baseMs: 5, capMs: 120 };
const bigintBounds = (b: ResourceBoundsBN) => ({
  l1_gas: { max_amount: b.l1_gas.max_amount.toString(), max_price_per_unit: b.l1_gas.max_price_per_unit.toString() },
  l2_gas: { max_amount: b.l2_gas.max_amount.toString(), max_price_per_unit: b.l2_gas.max_price_per_unit.toString() },
  l1_data_gas: { max_amount: b.l1_data_gas.max_amount.toString(), max_price_per_unit: b.l1_data_gas.max_price_per_unit.toString() },
});
const calldataOf = (c: Call): string[] => ((c.calldata ?? []) as unknown[]).map((x) => toHex(x as string));

export class LocalLedger {
  readonly adapter = 'local' as const;

  constructor(readonly chainId: constants.StarknetChainId) {}

  /** A token contract's metadata: STRK, ETH, or one the bridge registered; undefined where no token is deployed. */
  async token(address: string): Promise<TokenInfo | undefined> {
    const a = toHex64(address);
    const builtin = builtinToken(a);
    if (builtin) return builtin;
    const meta = await readTokenMeta(a);
    return meta && { address: a, ...meta };
  }

  /** ERC-20 `balance_of` (the sequencer's STRK includes the fees it collected). */
  async balanceOf(token: string, holder: string): Promise<bigint> {
    const t = toHex64(token);
    const h = toHex64(holder);
    const stored = await readBalance(h, t);
    return h === SEQUENCER_ADDRESS ? stored + (await readCollectedFees(t)) : stored;
  }

  /** ERC-20 `total_supply`: what the ledger's mints (faucet and bridge) added. */
  async totalSupply(token: string): Promise<bigint> {
    return readTotalSupply(toHex64(token));
  }

  /** starknet_getNonce: the account's next nonce (0 before deployment). */
  async getNonce(address: string): Promise<bigint> {
    return BigInt((await readAccount(toHex64(address)))?.nonce ?? 0);
  }

  /** starknet_getNonce at a block: the nonce after block `block`; undefined where no history tells (an account from before it was kept). */
  async getNonceAt(address: string, block: number): Promise<bigint | undefined> {
    const n = (await readNonceAt(toHex64(address), block)) ?? ((await this.isDeployed(address)) ? undefined : 0);
    return n === undefined ? undefined : BigInt(n);
  }

  /** starknet_blockNumber; starknet_getBlockWithTxs's transactions (none in a refused transaction's block). */
  readonly blockNumber = headBlockNumber;
  readonly blockTransactions = listBlockTransactions;

  async isDeployed(address: string): Promise<boolean> {
    return (await readAccount(toHex64(address))) !== undefined;
  }

  async getTransaction(txHash: string): Promise<LedgerTransaction | undefined> {
    return isFelt(txHash) ? getTransaction(toHex64(txHash)) : undefined;
  }

  /**
   * The bridge's mint of `amount` of `token` to `to`, exactly once per `messageId`: the first
   * call mints (an L1_HANDLER transaction with a Transfer from 0) and records the message; any
   * later call with that message id mints nothing and answers the first transaction's hash.
   */
  async bridgeMint(args: BridgeMint): Promise<{ txHash: string }> {
    if (!args.messageId) throw new RangeError('bridgeMint: messageId is required');
    const done = await readMintedMessage(args.messageId);
    if (done) return { txHash: done };
    const token = this.#checkMint(args.token, args.to, args.amount);
    if (!builtinToken(token) && args.symbol) {
      await registerTokenMeta(token, { symbol: args.symbol, name: args.name ?? args.symbol, decimals: args.decimals ?? 18 });
    }
    const to = toHex64(args.to);
    const txHash = toHex64(
      hash.computePoseidonHashOnElements([
        shortString.encodeShortString('L1_HANDLER'),
        hash.starknetKeccak(args.messageId),
        token,
        to,
        ...u256Felts(args.amount),
      ]),
    );
    const applied = await this.#mint('L1_HANDLER', token, to, args.amount, txHash, args.messageId);
    return { txHash: applied ?? (await readMintedMessage(args.messageId))! };
  }

  /** A warp route's storage, as deployed and enrolled: its token, Mailbox, local domain and remote routers. */
  async enrollWarpRoute(router: string, route: { token: string; mailbox: string; localDomain: number; routers: Record<string, string> }): Promise<void> {
    await enrollWarpRoute(toHex64(router), { ...route, token: toHex64(route.token), mailbox: toHex64(route.mailbox) });
  }

  /** The Mailbox's next nonce (what `nonce()` answers). */
  mailboxNonce(mailbox: string): Promise<number> {
    return readMailboxNonce(toHex64(mailbox));
  }

  /** The localnet faucet (as a devnet's mint): `amount` of `token` to `to`, a MINT transaction. */
  async faucetMint(token: string, to: string, amount: bigint): Promise<{ txHash: string }> {
    const t = this.#checkMint(token, to, amount);
    const txHash = toHex64(
      hash.computePoseidonHashOnElements([shortString.encodeShortString('MINT'), t, toHex64(to), ...u256Felts(amount), `0x${randomBytes(16).toString('hex')}`]),
    );
    await this.#mint('MINT', t, toHex64(to), amount, txHash);
    return { txHash };
  }

  #checkMint(token: string, to: string, amount: bigint): string {
    if (!isContractAddress(token)) throw new RangeError('mint: token must be a contract address');
    if (!isContractAddress(to)) throw new RangeError('mint: recipient must be a contract address (ERC20: mint to 0)');
    if (amount <= 0n || amount > U256_MAX) throw new RangeError('mint: amount must be in (0, 2^256)');
    return toHex64(token);
  }

  /** Applies a mint; the hash when applied, undefined when the bridge message was already minted. */
  async #mint(type: 'L1_HANDLER' | 'MINT', token: string, to: string, amount: bigint, txHash: string, messageId?: string): Promise<string | undefined> {
    const blockNumber = await nextBlockNumber();
    return retryOnConflict(
      async () => {
        const before = await readBalance(to, token);
        if (before + amount > U256_MAX) throw new RangeError('mint: u256 overflow');
        // total_supply grows with the mint, in the same write (ERC20Component::update from 0).
        const shard = Math.floor(Math.random() * SUPPLY_SHARDS);
        const shardBefore = await readSupplyShard(token, shard);
        if ((await readTotalSupply(token)) + amount > U256_MAX) throw new RangeError('mint: u256 overflow of the total supply');
        const tx: LedgerTransaction = {
          transactionHash: txHash,
          type,
          version: type === 'L1_HANDLER' ? '0x0' : '0x3',
          senderAddress: toHex64(0),
          nonce: '0x0',
          chainId: this.chainId,
          calls: [{ contractAddress: token, entrypoint: 'permissioned_mint', calldata: [toHex(to), ...u256Felts(amount)] }],
          signature: [],
          blockNumber,
          timestamp: clock.nowSeconds(),
          executionStatus: 'SUCCEEDED',
          actualFee: '0',
          ...(messageId !== undefined ? { messageId } : {}),
          events: [transferEvent(token, '0x0', to, amount)],
        };
        const conflict = await applyLedgerWrite({
          balances: [{ holder: to, token, before, after: before + amount }],
          supply: [{ token, shard, before: shardBefore, after: shardBefore + amount }],
          messageId,
          tx,
        });
        if (conflict === null) return txHash;
        if (conflict === 'message' || conflict === 'transaction') return undefined;
        return CONFLICT;
      },
      { ...BALANCE_RETRY, exhausted: () => new Error('chain B ledger: the balance kept changing; mint not applied') },
    );
  }

  /** A DEPLOY_ACCOUNT v3 of the OpenZeppelin account. */
  async deployAccount(tx: SignedDeployAccount): Promise<LedgerReceipt> {
    if (toHex64(tx.classHash) !== toHex64(OZ_ACCOUNT_CLASS_HASH))
      throw new LedgerRejection('CLASS_HASH_NOT_FOUND', `class with hash ${tx.classHash} is not declared`);
    const address = toHex64(tx.contractAddress);
    const publicKey = tx.constructorCalldata[0];
    if (tx.constructorCalldata.length !== 1 || !publicKey || toHex64(tx.addressSalt) !== toHex64(publicKey) || accountAddress(publicKey) !== address) {
      throw new LedgerRejection('VALIDATION_FAILURE', 'the contract address does not follow from the class, salt and constructor calldata');
    }
    const txHash = deployAccountHash({ ...tx, contractAddress: address, chainId: this.chainId });
    if (!verifyStarkSignature(txHash, tx.signature, publicKey)) throw new LedgerRejection('VALIDATION_FAILURE', ACCOUNT_REVERTS.invalidSignature);
    if (tx.nonce !== 0n || (await this.isDeployed(address)))
      throw new LedgerRejection('INVALID_TRANSACTION_NONCE', 'invalid transaction nonce: the account is already deployed');
    const use = LOCAL_GAS_USE.deployAccount;
    const base = {
      transactionHash: txHash,
      type: 'DEPLOY_ACCOUNT' as const,
      senderAddress: address,
      classHash: toHex64(tx.classHash),
      contractAddressSalt: toHex(tx.addressSalt),
      constructorCalldata: tx.constructorCalldata.map((x) => toHex(x)),
      calls: [],
    };
    return this.#run(
      tx,
      use,
      base,
      { kind: 'deploy', address, classHash: toHex64(tx.classHash), publicKey: toHex64(publicKey), deployTxHash: txHash, nonceAfter: 1 },
      async () => {
        // The account's constructor only stores the key; nothing else to execute.
      },
    );
  }

  /** An INVOKE v3 of a deployed account's `__execute__`. */
  async invoke(tx: SignedInvoke): Promise<LedgerReceipt> {
    const sender = toHex64(tx.senderAddress);
    const account = await readAccount(sender);
    if (!account) throw new LedgerRejection('CONTRACT_NOT_FOUND', `the account ${sender} is not deployed`);
    const txHash = invokeHash({ ...tx, senderAddress: sender, chainId: this.chainId });
    if (!verifyStarkSignature(txHash, tx.signature, account.publicKey)) throw new LedgerRejection('VALIDATION_FAILURE', ACCOUNT_REVERTS.invalidSignature);
    if (tx.nonce !== BigInt(account.nonce))
      throw new LedgerRejection('INVALID_TRANSACTION_NONCE', `invalid transaction nonce: expected ${account.nonce}, got ${tx.nonce}`);
    const calls = tx.calls.map((c) => ({ contractAddress: toHex64(c.contractAddress), entrypoint: c.entrypoint, calldata: calldataOf(c) }));
    const base = { transactionHash: txHash, type: 'INVOKE' as const, senderAddress: sender, calls };
    const nonceBefore = account.nonce;
    return this.#run(tx, LOCAL_GAS_USE.invoke, base, { kind: 'nonce', address: sender, nonceBefore, nonceAfter: nonceBefore + 1 }, async (w) => {
      for (const call of calls) await executeCall(w, sender, call, (a) => this.token(a));
    });
  }

  /**
   * What every account transaction goes through after its signature checked: the bounds and the
   * fee balance (refused if short), execution (reverted on a panic), the fee, one atomic write.
   */
  async #run(
    tx: { resourceBounds: ResourceBoundsBN; tip: bigint; nonce: bigint; signature: string[] },
    use: GasUse,
    base: Pick<LedgerTransaction, 'transactionHash' | 'type' | 'senderAddress' | 'calls'> & Partial<LedgerTransaction>,
    account: AccountWrite,
    execute: (w: Working) => Promise<void>,
  ): Promise<LedgerReceipt> {
    const short = insufficientBound(tx.resourceBounds, use, LOCAL_GAS_PRICES);
    if (short) throw new LedgerRejection('INSUFFICIENT_RESOURCES_FOR_VALIDATE', `the ${short} bounds do not cover the transaction at the current price`);
    const sender = base.senderAddress;
    const fee = feeOf(use);
    const blockNumber = await nextBlockNumber();
    return retryOnConflict(
      async () => {
        const w = new Working();
        const strkBefore = await w.balance(FEE_TOKEN.address, sender);
        if (strkBefore < maxFeeOf(tx.resourceBounds)) {
          throw new LedgerRejection('INSUFFICIENT_ACCOUNT_BALANCE', "the account's STRK balance is below the transaction's maximal fee");
        }
        const start = w.snapshot();
        let revertReason: string | undefined;
        try {
          await execute(w);
          if ((await w.balance(FEE_TOKEN.address, sender)) < fee) throw new Revert(ERC20_REVERTS.insufficientBalance);
        } catch (e) {
          if (!(e instanceof Revert)) throw e;
          revertReason = e.message;
          w.restore(start);
        }
        // The fee, after execution (a reverted execution still pays it).
        w.set(FEE_TOKEN.address, sender, (await w.balance(FEE_TOKEN.address, sender)) - fee);
        w.events.push(transferEvent(FEE_TOKEN.address, sender, SEQUENCER_ADDRESS, fee));
        const record: LedgerTransaction = {
          ...base,
          version: '0x3',
          nonce: toHex(tx.nonce),
          chainId: this.chainId,
          signature: tx.signature.map((x) => toHex(x)),
          blockNumber,
          timestamp: clock.nowSeconds(),
          executionStatus: revertReason ? 'REVERTED' : 'SUCCEEDED',
          ...(revertReason ? { revertReason } : {}),
          resourceBounds: bigintBounds(tx.resourceBounds),
          tip: tx.tip.toString(),
          actualFee: fee.toString(),
          events: w.events,
        };
        const mailbox =
          w.mailbox && w.mailbox.next > w.mailbox.before ? { mailbox: w.mailbox.mailbox, before: w.mailbox.before, after: w.mailbox.next } : undefined;
        const conflict = await applyLedgerWrite({
          balances: w.writes(),
          account,
          fee: { token: FEE_TOKEN.address, amount: fee },
          supply: await burnWrites(w.supply),
          ...(mailbox ? { mailbox } : {}),
          tx: record,
        });
        if (conflict === null) {
          return {
            transactionHash: base.transactionHash,
            executionStatus: record.executionStatus,
            ...(revertReason ? { revertReason } : {}),
            actualFee: fee,
            blockNumber,
            events: w.events,
          };
        }
        if (conflict === 'nonce' || conflict === 'transaction') {
          throw new LedgerRejection('INVALID_TRANSACTION_NONCE', 'invalid transaction nonce: another transaction used it');
        }
        return CONFLICT;
      },
      { ...BALANCE_RETRY, exhausted: () => new Error('chain B ledger: the balances kept changing; transaction not applied') },
    );
  }
}

let shared: LocalLedger | undefined;

/** The embedded ledger of this process (the one adapters.ts hands to chain B's port; it keeps no state of its own). */
export function localLedger(chainId: constants.StarknetChainId = readChainBConfig().chainId): LocalLedger {
  shared ??= new LocalLedger(chainId);
  return shared;
}
