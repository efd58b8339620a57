import * as z from 'zod';
import { drawFault, layerOptions, seeded } from '../faults-config.ts';
import { EthereumRpc, type EthereumRpcOptions } from './rpc.ts';

/**
 * The Ethereum L1 as the StarkGate watcher meets it on mainnet, over its JSON-RPC client
 * (`CHAIN_FAULTS=l1.…`, tests and `npm start`; docs/chain-faults.md). Decided once per
 * transaction, when its receipt is first read (by rate, seeded, or `inject`):
 *
 * - `reorg`: a reorganization removes the transaction's block before its confirmations; the block
 *   at that height is another one (another hash), the transaction is back in the mempool (no
 *   receipt, no block) and is mined again `reorgBlocks` blocks later;
 * - `stale-receipt`: the same reorganization, but the node (one behind a load balancer, or a
 *   provider's receipt index) keeps answering the old fork's receipt until the transaction is
 *   mined again — a receipt whose block is no longer the canonical one at its height;
 * - `late-receipt`: mined, but no receipt is served for `lateBlocks` blocks.
 *
 * The view is the node's: the embedded L1's own state keeps the transaction. With `mine` (the
 * embedded L1, which mines only on transactions) each read of a faulted transaction's receipt
 * mines a block (`evm_mine`), as time passing does on a real network while its watcher waits.
 */
export const FAULTS = ['reorg', 'stale-receipt', 'late-receipt'] as const;
export type L1Fault = (typeof FAULTS)[number];

export interface L1FaultOptions {
  reorgBlocks: number;
  lateBlocks: number;
  rates: Partial<Record<L1Fault, number>>;
  seed: number;
}

const SETTINGS = {
  'reorg-blocks': z.coerce.number().int().positive().max(1_000_000).default(3),
  'late-blocks': z.coerce.number().int().positive().max(10_000).default(2),
};

/** The L1's options from `CHAIN_FAULTS` (its `l1.` names); undefined when its layer is off. */
export function l1Faults(text: string): L1FaultOptions | undefined {
  const o = layerOptions(text, 'l1', SETTINGS, FAULTS);
  return o && { reorgBlocks: o.settings['reorg-blocks']!, lateBlocks: o.settings['late-blocks']!, seed: o.seed, rates: o.rates };
}

type Fate = { fault: 'none' } | { fault: 'reorg' | 'stale-receipt'; height: bigint; minedAgainAt: bigint } | { fault: 'late-receipt'; until: bigint };
type Raw = Record<string, unknown>;

const hex = (n: bigint) => `0x${n.toString(16)}`;
/** The hash of the new fork's block at a height a reorganization replaced (never the old one's). */
const forkHash = (height: bigint) => `0x${'f0' + height.toString(16).padStart(62, '0')}`;

export class FaultyEthereumRpc extends EthereumRpc {
  readonly injected: Record<L1Fault, number> = Object.fromEntries(FAULTS.map((f) => [f, 0])) as Record<L1Fault, number>;
  private readonly queue: { fault: L1Fault; blocks?: number }[] = [];
  private readonly random: () => number;
  private readonly fates = new Map<string, Fate>();
  /** Heights whose canonical block is the new fork's. */
  private readonly replaced = new Set<bigint>();

  constructor(
    opts: EthereumRpcOptions,
    readonly options: L1FaultOptions,
    private readonly mine = false,
  ) {
    super(opts);
    this.random = seeded(options.seed);
  }

  /** Tests: the next transaction whose receipt is read for the first time meets this (`blocks`: its own reorg-blocks or late-blocks). */
  inject(fault: L1Fault, blocks?: number): void {
    this.queue.push({ fault, ...(blocks ? { blocks } : {}) });
  }

  clearInjected(): void {
    this.queue.length = 0;
  }

  /** Tests: what a transaction met, once its receipt was read. */
  fateOf(txHash: string): Fate | undefined {
    return this.fates.get(txHash.toLowerCase());
  }

  override async call(method: string, params: unknown[]): Promise<unknown> {
    if (method === 'eth_getTransactionReceipt') return this.receipt(String(params[0]));
    if (method === 'eth_getTransactionByHash') return this.transaction(String(params[0]));
    const answer = await super.call(method, params);
    if (method === 'eth_getBlockByNumber' && answer && typeof answer === 'object') {
      const b = answer as Raw;
      const height = BigInt(String(b.number));
      if (this.replaced.has(height)) return { ...b, hash: forkHash(height), transactions: [] };
    }
    return answer;
  }

  private async head(): Promise<bigint> {
    return BigInt(String(await super.call('eth_blockNumber', [])));
  }

  /** Time passing on the embedded L1 while something waits for blocks. */
  private async tick(): Promise<void> {
    if (this.mine) await super.call('evm_mine', []).catch(() => undefined);
  }

  private async receipt(hash: string): Promise<unknown> {
    const r = (await super.call('eth_getTransactionReceipt', [hash])) as Raw | null;
    if (!r?.blockNumber) return r;
    const fate = this.fateFor(hash, BigInt(String(r.blockNumber)));
    if (fate.fault === 'none') return r;
    const head = await this.head();
    await this.tick(); // its watcher waits for blocks: for the receipt, then for its confirmations
    if (fate.fault === 'late-receipt') return head >= fate.until ? r : null;
    if (head < fate.minedAgainAt) return fate.fault === 'stale-receipt' ? r : null;
    // Mined again, in the block at minedAgainAt.
    const block = (await this.call('eth_getBlockByNumber', [hex(fate.minedAgainAt), false])) as Raw;
    const at = { blockNumber: hex(fate.minedAgainAt), blockHash: block.hash };
    return { ...r, ...at, logs: Array.isArray(r.logs) ? (r.logs as Raw[]).map((l) => ({ ...l, ...at })) : r.logs };
  }

  private async transaction(hash: string): Promise<unknown> {
    const t = (await super.call('eth_getTransactionByHash', [hash])) as Raw | null;
    const fate = this.fates.get(hash.toLowerCase());
    if (!t || !fate || (fate.fault !== 'reorg' && fate.fault !== 'stale-receipt')) return t;
    if ((await this.head()) < fate.minedAgainAt) return { ...t, blockNumber: null, blockHash: null, transactionIndex: null };
    return { ...t, blockNumber: hex(fate.minedAgainAt) };
  }

  private fateFor(hash: string, height: bigint): Fate {
    const key = hash.toLowerCase();
    let fate = this.fates.get(key);
    if (fate) return fate;
    const { fault, blocks } = this.next() ?? {};
    if (fault === 'late-receipt') fate = { fault, until: height + BigInt(blocks ?? this.options.lateBlocks) };
    else if (fault) {
      fate = { fault, height, minedAgainAt: height + BigInt(blocks ?? this.options.reorgBlocks) };
      this.replaced.add(height);
    } else fate = { fault: 'none' };
    this.fates.set(key, fate);
    return fate;
  }

  private next(): { fault: L1Fault; blocks?: number } | undefined {
    let next = this.queue.shift();
    if (!next) {
      const fault = drawFault(FAULTS, this.options.rates, this.random);
      if (fault) next = { fault };
    }
    if (next) this.injected[next.fault]++;
    return next;
  }
}
