import { createRpc, type Rpc } from '@lightprotocol/stateless.js';
import { SendTransactionError, type PublicKey, type VersionedTransaction } from '@solana/web3.js';
import { ChainRejected, ChainUnavailable, type ChainA, type ChainANetwork, type SentTransaction } from './port.ts';

export interface RpcChainAOptions {
  network: ChainANetwork;
  /** Solana JSON-RPC. */
  rpcUrl: string;
  /** Photon (ZK-compression indexer) JSON-RPC. */
  indexerUrl: string;
  /** The validity-proof prover. */
  proverUrl: string;
  /** How long to wait for a confirmation, and how often to ask. */
  confirmTimeoutMs?: number;
  pollMs?: number;
}

/**
 * A real cluster: Solana JSON-RPC plus a Photon indexer (any ZK-compression RPC provider), through
 * stateless.js's own `Rpc`. Sending is `sendRawTransaction` (with preflight: the node simulates
 * first, so a doomed transaction costs nothing) and confirming polls `getSignatureStatuses` until
 * the transaction is `confirmed`. Failures to reach the node or the indexer become
 * `ChainUnavailable`; a transaction the cluster refuses becomes `ChainRejected` with its logs.
 */
export class RpcChainA implements ChainA {
  readonly network: ChainANetwork;
  readonly rpc: Rpc;
  private readonly confirmTimeoutMs: number;
  private readonly pollMs: number;

  constructor(opts: RpcChainAOptions) {
    this.network = opts.network;
    this.rpc = classifyingErrors(createRpc(opts.rpcUrl, opts.indexerUrl, opts.proverUrl, { commitment: 'confirmed', disableRetryOnRateLimit: true }));
    this.confirmTimeoutMs = opts.confirmTimeoutMs ?? 25_000;
    this.pollMs = opts.pollMs ?? 500;
  }

  async sendAndConfirm(tx: VersionedTransaction): Promise<SentTransaction> {
    let signature: string;
    try {
      signature = await this.rpc.sendRawTransaction(tx.serialize(), { preflightCommitment: 'confirmed', maxRetries: 3 });
    } catch (e) {
      throw classify(e);
    }
    return this.confirm(signature);
  }

  async airdrop(to: PublicKey, lamports: bigint): Promise<SentTransaction> {
    if (this.network === 'mainnet') throw new ChainRejected('mainnet has no faucet');
    let signature: string;
    try {
      signature = await this.rpc.requestAirdrop(to, Number(lamports));
    } catch (e) {
      throw classify(e);
    }
    return this.confirm(signature);
  }

  /** A live cluster has the bridge's deployment: nothing to set up. */
  async prepareRoute(): Promise<void> {}

  async prepareReleaseCollateral(): Promise<void> {}

  async indexerSlot(): Promise<number> {
    try {
      return await this.rpc.getIndexerSlot();
    } catch (e) {
      throw classify(e);
    }
  }

  explorerUrl(signature: string): string {
    const cluster = this.network === 'mainnet' ? '' : `?cluster=${this.network === 'devnet' ? 'devnet' : 'custom'}`;
    return `https://explorer.solana.com/tx/${signature}${cluster}`;
  }

  private async confirm(signature: string): Promise<SentTransaction> {
    const deadline = Date.now() + this.confirmTimeoutMs;
    for (;;) {
      let status;
      try {
        status = (await this.rpc.getSignatureStatuses([signature])).value[0];
      } catch (e) {
        throw classify(e);
      }
      if (status?.err) throw new ChainRejected(`transaction ${signature} failed: ${JSON.stringify(status.err)}`, [], customCode(status.err));
      if (status && (status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized')) {
        return { signature, slot: status.slot };
      }
      if (Date.now() > deadline) throw new ChainUnavailable(`transaction ${signature} was not confirmed within ${this.confirmTimeoutMs / 1000} s`);
      await new Promise((r) => setTimeout(r, this.pollMs));
    }
  }
}

/**
 * The SDKs call the Rpc directly; whatever it throws (a network failure, an HTTP error, an answer
 * that does not validate) reaches the service as ChainUnavailable, never as an unknown error.
 */
function classifyingErrors(rpc: Rpc): Rpc {
  return new Proxy(rpc, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        try {
          const out: unknown = value.apply(target, args);
          return out instanceof Promise ? out.catch((e: unknown) => Promise.reject(classify(e))) : out;
        } catch (e) {
          throw classify(e);
        }
      };
    },
  });
}

/** `{InstructionError: [i, {Custom: n}]}` → n. */
function customCode(err: unknown): number | undefined {
  const ie = (err as { InstructionError?: [number, unknown] })?.InstructionError;
  const custom = (ie?.[1] as { Custom?: unknown } | undefined)?.Custom;
  return typeof custom === 'number' ? custom : undefined;
}

/** Network and HTTP failures → ChainUnavailable; the cluster refusing a transaction → ChainRejected. */
export function classify(e: unknown): Error {
  if (e instanceof ChainRejected || e instanceof ChainUnavailable) return e;
  if (e instanceof SendTransactionError) {
    const logs = e.logs ?? [];
    const text = `${e.message} ${logs.join(' ')}`;
    const custom = /custom program error: (0x[0-9a-f]+)/i.exec(text);
    return new ChainRejected(
      e.message,
      logs,
      custom ? Number(custom[1]) : undefined,
      /insufficient (funds|lamports)|AccountNotFound|no record of a prior credit/i.test(text),
    );
  }
  const message = e instanceof Error ? e.message : String(e);
  return new ChainUnavailable(`chain A RPC: ${message}`);
}
