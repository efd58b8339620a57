import { Account, LibraryError, RpcError, RpcProvider, type constants } from 'starknet';
import { accountAddress, invokeV3Of, OZ_ACCOUNT_CLASS_HASH, publicKeyOf, signedInvokeHash, storedInvoke, type SignedInvokeV3 } from './account.ts';
import { toHex64 } from './felts.ts';
import { ACCEPTED, acceptedReceipt, ReceiptRejected, ReceiptTimeout, type AcceptedReceipt } from './receipts.ts';
import { transferCall } from './tokens.ts';
import {
  ChainBOutcomeUnknown,
  ChainBRejected,
  ChainBReverted,
  ChainBUnavailable,
  type BlockTransaction,
  type ChainB,
  type ChainBTransaction,
  type ChainBTxStatus,
  type TransferOutcome,
  type ExecuteRequest,
  type TransferRequest,
  type SignedInvoke,
} from './port.ts';
import { builtinToken, u256FromFelts, type TokenInfo } from './tokens.ts';

export interface RpcChainOptions {
  rpcUrl: string;
  chainId: constants.StarknetChainId;
  /** Transport override (tests answer JSON-RPC offline with it). */
  fetch?: typeof fetch;
  /** How often to poll for a receipt (ms); default 2000. */
  pollIntervalMs?: number;
  /**
   * How long one `execute` waits for its receipts in all (ms); default 20 000 — under the 29 s of
   * the routes that send, so that a slow chain is an unknown outcome the route answers, not a
   * function cut off mid-wait.
   */
  receiptTimeoutMs?: number;
}

/** One L1→L2 message of an Ethereum transaction, as chain B's node reports it. */
export interface L1MessageStatus {
  /** The L1_HANDLER transaction on chain B. */
  transactionHash: string;
  /** RECEIVED, ACCEPTED_ON_L2, ACCEPTED_ON_L1 (or REJECTED on older nodes). */
  finalityStatus: string;
  executionStatus: 'SUCCEEDED' | 'REVERTED' | null;
  failureReason?: string;
}

/** The Cairo panic string inside a node's revert message ("… Failure reason: 0x… ('ERC20: insufficient balance')."). */
export function revertReasonOf(message: string): string {
  const quoted = [...message.matchAll(/\('([^']*)'\)/g)].map((m) => m[1]!);
  return quoted.at(-1) ?? message;
}

/** A node's error as the port's: refusals by their JSON-RPC code, anything else unreachable. */
function asPortError(e: unknown): unknown {
  if (e instanceof ChainBReverted || e instanceof ChainBRejected) return e;
  if (e instanceof RpcError) {
    if (e.isType('INVALID_TRANSACTION_NONCE')) return new ChainBRejected('NONCE', e.message);
    if (e.isType('INSUFFICIENT_ACCOUNT_BALANCE')) return new ChainBRejected('FEE_BALANCE', e.message);
    if (e.isType('TRANSACTION_EXECUTION_ERROR') || e.isType('CONTRACT_ERROR')) return new ChainBReverted(revertReasonOf(JSON.stringify(e.baseError)), '');
    if (e.isType('VALIDATION_FAILURE') || e.isType('INSUFFICIENT_RESOURCES_FOR_VALIDATE')) return new ChainBRejected('INVALID', e.message);
  }
  return new ChainBUnavailable(e instanceof LibraryError || e instanceof Error ? e.message : 'chain B node error', { cause: e });
}

const bound = (b: { max_amount: string; max_price_per_unit: string }) => ({
  max_amount: BigInt(b.max_amount),
  max_price_per_unit: BigInt(b.max_price_per_unit),
});
const boundsOf = (tx: SignedInvokeV3) => ({
  l1_gas: bound(tx.resource_bounds.l1_gas),
  l2_gas: bound(tx.resource_bounds.l2_gas),
  l1_data_gas: bound(tx.resource_bounds.l1_data_gas),
});

/** The caller's `beforeSend` failed: its own error, passed on untouched (nothing was sent). */
class HookFailed extends Error {}

async function hook(req: ExecuteRequest, txHash: string, signed: SignedInvoke): Promise<void> {
  try {
    await req.beforeSend?.(txHash, signed);
  } catch (e) {
    throw new HookFailed('beforeSend failed', { cause: e });
  }
}

/**
 * Chain B on a real node (Starknet JSON-RPC): starknet.js v10 `RpcProvider` and `Account` (the
 * OpenZeppelin account at the wallet's counterfactual address, Cairo 1 calldata). The node
 * estimates fees (starknet.js adds its margins to the resource bounds) and picks the nonce.
 */
export class RpcChainB implements ChainB {
  readonly adapter = 'rpc' as const;
  readonly provider: RpcProvider;
  readonly #pollMs: number;
  readonly #receiptTimeoutMs: number;
  readonly #chainId: constants.StarknetChainId;

  constructor(opts: RpcChainOptions) {
    this.#chainId = opts.chainId;
    this.provider = new RpcProvider({ nodeUrl: opts.rpcUrl, chainId: opts.chainId, ...(opts.fetch ? { baseFetch: opts.fetch } : {}) });
    this.#pollMs = opts.pollIntervalMs ?? 2000;
    this.#receiptTimeoutMs = opts.receiptTimeoutMs ?? 20_000;
  }

  async tokenInfo(address: string): Promise<TokenInfo | undefined> {
    const builtin = builtinToken(address);
    if (builtin) return builtin;
    try {
      const [decimals] = await this.provider.callContract({ contractAddress: toHex64(address), entrypoint: 'decimals', calldata: [] });
      const [symbol] = await this.provider.callContract({ contractAddress: toHex64(address), entrypoint: 'symbol', calldata: [] });
      const text = Buffer.from(
        BigInt(symbol ?? '0')
          .toString(16)
          .replace(/^(.(..)*)$/, '0$1'),
        'hex',
      ).toString('latin1');
      return { address: toHex64(address), symbol: text, name: text, decimals: Number(BigInt(decimals ?? '18')) };
    } catch (e) {
      if (e instanceof RpcError && e.isType('CONTRACT_NOT_FOUND')) return undefined;
      throw asPortError(e);
    }
  }

  async balanceOf(token: string, address: string): Promise<bigint> {
    try {
      const [low, high] = await this.provider.callContract({ contractAddress: toHex64(token), entrypoint: 'balance_of', calldata: [toHex64(address)] });
      return u256FromFelts(BigInt(low ?? 0), BigInt(high ?? 0));
    } catch (e) {
      throw asPortError(e);
    }
  }

  async isDeployed(address: string): Promise<boolean> {
    try {
      await this.provider.getClassHashAt(toHex64(address));
      return true;
    } catch (e) {
      if (e instanceof RpcError && e.isType('CONTRACT_NOT_FOUND')) return false;
      throw asPortError(e);
    }
  }

  /** The node estimates each transaction's fee; it refuses one the account cannot pay. */
  async maxFees(): Promise<undefined> {
    return undefined;
  }

  /** A node has the route's real deployment: nothing to set up. */
  async prepareWarpRoute(): Promise<void> {}

  async faucet(): Promise<{ txHash: string }> {
    throw new ChainBRejected('INVALID', 'no faucet on a real chain B network');
  }

  /** The transaction's fee once accepted; ChainBReverted if it reverted; ChainBUnavailable at `deadline`. */
  async #settle(txHash: string, deadline: number, deployTxHash?: string): Promise<bigint> {
    let receipt: AcceptedReceipt;
    try {
      receipt = await acceptedReceipt(this.provider, txHash, { pollMs: this.#pollMs, deadline });
    } catch (e) {
      if (e instanceof ReceiptTimeout) throw new ChainBUnavailable(e.message, { cause: e.last });
      if (e instanceof ReceiptRejected) throw new ChainBRejected('INVALID', e.message);
      throw e;
    }
    if (receipt.execution_status === 'REVERTED') throw new ChainBReverted(revertReasonOf(receipt.revert_reason ?? 'reverted'), toHex64(txHash), deployTxHash);
    return BigInt(receipt.actual_fee?.amount ?? 0);
  }

  transfer(req: TransferRequest): Promise<TransferOutcome> {
    return this.execute({ privateKey: req.privateKey, calls: [transferCall(req.token, req.to, req.amount)] });
  }

  async execute(req: ExecuteRequest): Promise<TransferOutcome> {
    const publicKey = publicKeyOf(req.privateKey);
    const address = accountAddress(publicKey);
    const account = new Account({ provider: this.provider, address, signer: req.privateKey, cairoVersion: '1' });
    let txHash: string | undefined;
    let deployTxHash: string | undefined;
    const deadline = Date.now() + this.#receiptTimeoutMs;
    try {
      let fee = 0n;
      if (!(await this.isDeployed(address))) {
        const d = await account.deployAccount({
          classHash: OZ_ACCOUNT_CLASS_HASH,
          constructorCalldata: [publicKey],
          addressSalt: publicKey,
          contractAddress: address,
        });
        deployTxHash = toHex64(d.transaction_hash);
        fee += await this.#settle(deployTxHash, deadline);
      }
      // Signed first, sent next (what `account.execute` does in one step), so that the hash is
      // known — and kept by the caller — before the transaction can land.
      const tx = (await account.getSignedTransaction(req.calls)) as SignedInvokeV3 & { signature: string[] };
      txHash = signedInvokeHash(tx, this.#chainId);
      const signed = { sender: toHex64(tx.sender_address), nonce: BigInt(tx.nonce), invoke: storedInvoke(req.calls, boundsOf(tx), tx.tip, tx.signature) };
      // What the journal keeps must be this very transaction, or a resend would be another one.
      if (signedInvokeHash(invokeV3Of(signed.sender, signed.nonce, signed.invoke), this.#chainId) !== txHash) {
        throw new ChainBUnavailable('the signed INVOKE has fields the journal does not keep (a paymaster, deployment data, L2 data availability): not sent');
      }
      await hook(req, txHash, signed);
      const { transaction_hash } = await this.provider.invokeSignedTx(tx as Parameters<RpcProvider['invokeSignedTx']>[0]);
      if (toHex64(transaction_hash) !== txHash) throw new ChainBUnavailable(`the node named the transaction ${toHex64(transaction_hash)}, not ${txHash}`);
      fee += await this.#settle(txHash, deadline, deployTxHash);
      return { txHash, ...(deployTxHash ? { deployTxHash } : {}), fee };
    } catch (e) {
      if (e instanceof HookFailed) throw e.cause;
      const out = asPortError(e);
      // Sent (or about to be) and no answer: it may still be included.
      if (txHash && out instanceof ChainBUnavailable) throw new ChainBOutcomeUnknown(txHash, deployTxHash, out.message, { cause: e });
      throw out;
    }
  }

  /**
   * `starknet_getMessagesStatus`: the L1_HANDLER transactions the L1→L2 messages of the Ethereum
   * transaction `l1TxHash` became, with their status; [] while the node has not seen them.
   */
  async l1MessagesStatus(l1TxHash: string): Promise<L1MessageStatus[]> {
    try {
      const list = (await this.provider.getL1MessagesStatus(l1TxHash)) as {
        transaction_hash: string;
        finality_status: string;
        execution_status?: string;
        failure_reason?: string;
      }[];
      return list.map((m) => ({
        transactionHash: toHex64(m.transaction_hash),
        finalityStatus: m.finality_status,
        executionStatus: m.execution_status === 'SUCCEEDED' || m.execution_status === 'REVERTED' ? m.execution_status : null,
        ...(m.failure_reason ? { failureReason: m.failure_reason } : {}),
      }));
    } catch (e) {
      if (e instanceof RpcError && e.isType('TXN_HASH_NOT_FOUND')) return [];
      throw asPortError(e);
    }
  }

  /** `starknet_getNonce` at `latest` or at `{block_number}` (BLOCK_NOT_FOUND from a node behind it: ChainBUnavailable). */
  async getNonce(address: string, block?: number): Promise<bigint> {
    try {
      return BigInt(await this.provider.getNonceForAddress(toHex64(address), block ?? 'latest'));
    } catch (e) {
      if (e instanceof RpcError && e.isType('CONTRACT_NOT_FOUND')) return 0n;
      throw asPortError(e);
    }
  }

  async blockNumber(): Promise<number> {
    try {
      return await this.provider.getBlockNumber();
    } catch (e) {
      throw asPortError(e);
    }
  }

  /**
   * `starknet_getBlockWithTxs` of `{block_number}`: an accepted block's transactions, the same on
   * every node that has it; INVOKE and DECLARE name their sender and nonce (a DEPLOY_ACCOUNT does
   * not name its address, an L1_HANDLER's nonce is the L1 message's).
   */
  async blockTransactions(block: number): Promise<BlockTransaction[]> {
    try {
      const b = (await this.provider.getBlockWithTxs(block)) as {
        block_number?: number;
        transactions: { transaction_hash: string; type: string; sender_address?: string; nonce?: string }[];
      };
      if (b.block_number !== block) throw new ChainBUnavailable(`asked for block ${block}, the node answered ${b.block_number ?? 'a pending block'}`);
      return b.transactions.map((t) =>
        (t.type === 'INVOKE' || t.type === 'DECLARE') && t.sender_address !== undefined && t.nonce !== undefined
          ? { hash: toHex64(t.transaction_hash), sender: toHex64(t.sender_address), nonce: BigInt(t.nonce) }
          : { hash: toHex64(t.transaction_hash) },
      );
    } catch (e) {
      throw asPortError(e);
    }
  }

  /** `starknet_addInvokeTransaction` of the same signed transaction: the node names it by the same hash. */
  async resend(signed: SignedInvoke): Promise<void> {
    const tx = invokeV3Of(signed.sender, signed.nonce, signed.invoke);
    const txHash = signedInvokeHash(tx, this.#chainId);
    try {
      const { transaction_hash } = await this.provider.invokeSignedTx(tx as Parameters<RpcProvider['invokeSignedTx']>[0]);
      if (toHex64(transaction_hash) !== txHash) throw new ChainBUnavailable(`the node named the transaction ${toHex64(transaction_hash)}, not ${txHash}`);
    } catch (e) {
      throw asPortError(e);
    }
  }

  async getTransactionStatus(hash: string): Promise<ChainBTxStatus> {
    try {
      const { finality_status } = (await this.provider.getTransactionStatus(hash)) as { finality_status: string };
      if (ACCEPTED.has(finality_status)) return 'ACCEPTED';
      if (finality_status === 'REJECTED') return 'REJECTED';
      return 'RECEIVED'; // RECEIVED, and on newer nodes CANDIDATE and PRE_CONFIRMED: not in an accepted block yet
    } catch (e) {
      if (e instanceof RpcError && e.isType('TXN_HASH_NOT_FOUND')) return 'NOT_RECEIVED';
      throw asPortError(e);
    }
  }

  /**
   * Only a transaction accepted in a block: a receipt that is not (PRE_CONFIRMED on newer nodes, a
   * pending block's without a block hash on older ones) is of a transaction that may still be
   * dropped, and a withdrawal released on it could be paid for nothing.
   */
  async getTransaction(hash: string): Promise<ChainBTransaction | null> {
    try {
      const [tx, receipt] = await Promise.all([this.provider.getTransactionByHash(hash), this.provider.getTransactionReceipt(hash)]);
      const t = tx as { type: string; sender_address?: string; contract_address?: string; nonce?: string };
      const r = receipt.value as AcceptedReceipt & {
        events?: { from_address: string; keys: string[]; data: string[] }[];
        block_number?: number;
        block_hash?: string;
        finality_status?: string;
      };
      if (!ACCEPTED.has(r.finality_status ?? '') || !r.block_hash) return null;
      return {
        hash: toHex64(hash),
        status: r.execution_status === 'REVERTED' ? 'REVERTED' : 'SUCCEEDED',
        ...(r.revert_reason ? { revertReason: revertReasonOf(r.revert_reason) } : {}),
        type: t.type,
        sender: toHex64(t.sender_address ?? t.contract_address ?? '0x0'),
        nonce: t.nonce ?? '0x0',
        fee: BigInt(r.actual_fee?.amount ?? 0).toString(),
        events: (r.events ?? []).map((e) => ({ fromAddress: toHex64(e.from_address), keys: e.keys, data: e.data })),
        blockNumber: r.block_number ?? null,
      };
    } catch (e) {
      if (e instanceof RpcError && e.isType('TXN_HASH_NOT_FOUND')) return null;
      throw asPortError(e);
    }
  }
}
