import { EDataAvailabilityMode, ETransactionVersion3, Signer, stark, type ResourceBoundsBN } from 'starknet';
import { accountAddress, boundsOfStored, invokeHash, OZ_ACCOUNT_CLASS_HASH, publicKeyOf, storedInvoke } from '#lib/chains/chain-b/account.ts';
import { boundsFor, LOCAL_GAS_USE, maxFeeOf } from '#lib/chains/chain-b/fees.ts';
import { LedgerRejection, type LocalLedger } from './ledger.ts';
import {
  ChainBOutcomeUnknown,
  ChainBRejected,
  ChainBReverted,
  ChainBUnavailable,
  type BlockTransaction,
  type ChainB,
  type ChainBTransaction,
  type MaxFees,
  type ExecuteRequest,
  type TransferOutcome,
  type TransferRequest,
  type WarpRouteSetup,
  type ChainBTxStatus,
  type SignedInvoke,
} from '#lib/chains/chain-b/port.ts';
import { transferCall, type TokenInfo } from '#lib/chains/chain-b/tokens.ts';

/**
 * The local adapter: the wallet side of a transfer done as starknet.js does it (`Signer` signs
 * the DEPLOY_ACCOUNT and the INVOKE v3 with resource bounds = the fee schedule + 50 %), sent to
 * the embedded ledger, which verifies every signature and applies each transaction atomically.
 */
const v3 = () => ({
  version: ETransactionVersion3.V3,
  tip: 0n,
  paymasterData: [],
  accountDeploymentData: [],
  nonceDataAvailabilityMode: EDataAvailabilityMode.L1,
  feeDataAvailabilityMode: EDataAvailabilityMode.L1,
});

const INVOKE_BOUNDS = boundsFor(LOCAL_GAS_USE.invoke);
const DEPLOY_BOUNDS = boundsFor(LOCAL_GAS_USE.deployAccount);

function asPortError(e: unknown): unknown {
  if (!(e instanceof LedgerRejection)) return e;
  if (e.code === 'INVALID_TRANSACTION_NONCE') return new ChainBRejected('NONCE', e.message);
  if (e.code === 'INSUFFICIENT_ACCOUNT_BALANCE') return new ChainBRejected('FEE_BALANCE', e.message);
  return new ChainBRejected('INVALID', e.message);
}

export class LocalChainB implements ChainB {
  readonly adapter = 'local' as const;

  constructor(readonly ledger: LocalLedger) {}

  tokenInfo(address: string): Promise<TokenInfo | undefined> {
    return this.ledger.token(address);
  }

  balanceOf(token: string, address: string): Promise<bigint> {
    return this.ledger.balanceOf(token, address);
  }

  isDeployed(address: string): Promise<boolean> {
    return this.ledger.isDeployed(address);
  }

  async maxFees(): Promise<MaxFees> {
    return { invoke: maxFeeOf(INVOKE_BOUNDS), deployAccount: maxFeeOf(DEPLOY_BOUNDS) };
  }

  faucet(token: string, to: string, amount: bigint): Promise<{ txHash: string }> {
    return this.ledger.faucetMint(token, to, amount);
  }

  prepareWarpRoute(router: string, route: WarpRouteSetup): Promise<void> {
    return this.ledger.enrollWarpRoute(router, route);
  }

  transfer(req: TransferRequest): Promise<TransferOutcome> {
    return this.execute({ privateKey: req.privateKey, calls: [transferCall(req.token, req.to, req.amount)] });
  }

  async execute(req: ExecuteRequest): Promise<TransferOutcome> {
    const signer = new Signer(req.privateKey);
    const publicKey = publicKeyOf(req.privateKey);
    const address = accountAddress(publicKey);
    const chainId = this.ledger.chainId;
    let deployTxHash: string | undefined;
    let fee = 0n;
    try {
      if (!(await this.ledger.isDeployed(address))) {
        const details = {
          ...v3(),
          classHash: OZ_ACCOUNT_CLASS_HASH,
          constructorCalldata: [publicKey],
          addressSalt: publicKey,
          contractAddress: address,
          chainId,
          nonce: 0n,
          resourceBounds: DEPLOY_BOUNDS,
        };
        const signature = stark.signatureToHexArray(await signer.signDeployAccountTransaction(details));
        const r = await this.ledger.deployAccount({ ...details, signature });
        deployTxHash = r.transactionHash;
        fee += r.actualFee;
        if (r.executionStatus === 'REVERTED') throw new ChainBReverted(r.revertReason ?? 'reverted', r.transactionHash, deployTxHash);
      }
      const nonce = await this.ledger.getNonce(address);
      const calls = req.calls;
      const resourceBounds: ResourceBoundsBN = INVOKE_BOUNDS;
      const signature = stark.signatureToHexArray(
        await signer.signTransaction(calls, { ...v3(), walletAddress: address, cairoVersion: '1', chainId, nonce, resourceBounds }),
      );
      // The hash the ledger gives this INVOKE (as a node computes it from the signed transaction).
      const txHash = invokeHash({ senderAddress: address, calls, nonce, resourceBounds, tip: 0n, chainId });
      await req.beforeSend?.(txHash, { sender: address, nonce, invoke: storedInvoke(calls, resourceBounds, 0n, signature) });
      let r;
      try {
        r = await this.ledger.invoke({ senderAddress: address, calls, nonce, resourceBounds, tip: 0n, signature });
      } catch (e) {
        // A refusal is definite; anything else (its store unreachable mid-write) leaves it unknown.
        if (e instanceof LedgerRejection) throw e;
        throw new ChainBOutcomeUnknown(txHash, deployTxHash, e instanceof Error ? e.message : 'the ledger did not answer', { cause: e });
      }
      fee += r.actualFee;
      if (r.executionStatus === 'REVERTED') throw new ChainBReverted(r.revertReason ?? 'reverted', r.transactionHash, deployTxHash);
      return { txHash: r.transactionHash, ...(deployTxHash ? { deployTxHash } : {}), fee };
    } catch (e) {
      throw asPortError(e);
    }
  }

  async getNonce(address: string, block?: number): Promise<bigint> {
    if (block === undefined) return this.ledger.getNonce(address);
    await this.#reached(block);
    const nonce = await this.ledger.getNonceAt(address, block);
    if (nonce === undefined) throw new ChainBUnavailable(`no nonce history of ${address} at block ${block} (an account from before the ledger kept one)`);
    return nonce;
  }

  blockNumber(): Promise<number> {
    return this.ledger.blockNumber();
  }

  async blockTransactions(block: number): Promise<BlockTransaction[]> {
    await this.#reached(block);
    return this.ledger.blockTransactions(block);
  }

  /** A block past the head is not found, as a node answers. */
  async #reached(block: number): Promise<void> {
    if (block > (await this.ledger.blockNumber())) throw new ChainBUnavailable(`BLOCK_NOT_FOUND: block ${block} is past the latest`);
  }

  /** The ledger applies it at once (or refuses it: its nonce taken, say). */
  async resend(signed: SignedInvoke): Promise<void> {
    const s = signed.invoke;
    try {
      const r = await this.ledger.invoke({
        senderAddress: signed.sender,
        calls: s.calls,
        nonce: signed.nonce,
        resourceBounds: boundsOfStored(s),
        tip: BigInt(s.tip),
        signature: s.signature,
      });
      if (r.executionStatus === 'REVERTED') throw new ChainBReverted(r.revertReason ?? 'reverted', r.transactionHash);
    } catch (e) {
      throw asPortError(e);
    }
  }

  /** The ledger applies or refuses a transaction at once: accepted, or never received. */
  async getTransactionStatus(hash: string): Promise<ChainBTxStatus> {
    return (await this.ledger.getTransaction(hash)) ? 'ACCEPTED' : 'NOT_RECEIVED';
  }

  async getTransaction(hash: string): Promise<ChainBTransaction | null> {
    const tx = await this.ledger.getTransaction(hash);
    if (!tx) return null;
    return {
      hash: tx.transactionHash,
      status: tx.executionStatus,
      ...(tx.revertReason ? { revertReason: tx.revertReason } : {}),
      type: tx.type,
      sender: tx.senderAddress,
      nonce: tx.nonce,
      fee: tx.actualFee ?? '0',
      events: tx.events ?? [],
      blockNumber: tx.blockNumber,
    };
  }
}
