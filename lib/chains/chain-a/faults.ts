import type { Rpc } from '@lightprotocol/stateless.js';
import type { PublicKey, SignatureStatusConfig, VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { drawFault, layerOptions, seeded } from '../faults-config.ts';
import { ChainRejected, ChainUnavailable, type ChainA, type SentTransaction } from './port.ts';

/**
 * Chain A as a real cluster misbehaves, over any adapter of the port (the tests' local chain, or
 * `npm start` with `CHAIN_FAULTS=…`, README "Chains that misbehave"). Always, as Solana does:
 *
 * - slots advance with time (one per `slotMs` of the clock) besides one per transaction;
 * - a blockhash is valid for `window` slots after it was handed out (`lastValidBlockHeight`),
 *   then a transaction carrying it is refused with BlockhashNotFound;
 * - a landed transaction's status is answered from the recent status cache for `window` slots only;
 *   after that `getSignatureStatuses` says null unless asked with `searchTransactionHistory`;
 * - sending a transaction that already landed: AlreadyProcessed while its status is cached, and
 *   BlockhashNotFound once its blockhash expired (the cluster no longer knows either).
 *
 * And on purpose, by rate (seeded) or one at a time (`inject`, tests), the faults of `FAULTS`.
 * A crash is a call that never settles: the caller's `finally` never runs, as when its process dies.
 */
export const FAULTS = [
  /** An RPC call (read or send) times out before it reaches the chain. */
  'rpc-timeout',
  /** HTTP 429 from the RPC provider. */
  'rate-limited',
  /** HTTP 5xx from the RPC provider. */
  'server-error',
  /** The send is accepted but the transaction never lands. */
  'dropped',
  /** The transaction lands, but its confirmation comes after the client's timeout. */
  'late',
  /** The send is accepted; the transaction lands at the next call, after the client gave up. */
  'lands-later',
  /**
   * The send is accepted; the transaction stays in flight (no status; a resend is accepted again and
   * not confirmed in time either) and lands IN_FLIGHT_SLOTS slots later, if its blockhash is still
   * valid then. The window in which a client that signs anew pays twice.
   */
  'in-flight',
  /**
   * The call is answered by a node LAG slots behind the cluster (one of several behind a provider's
   * load balancer): a send carrying a blockhash it has not seen yet is refused with BlockhashNotFound
   * (not passed on; a copy sent before still lands); the slot and block height are its own; a status
   * of a transaction that landed in the last LAG slots is missing, history searched or not.
   */
  'lagging',
  /** The caller dies before its send reaches the chain (injected on a read: while it waits for the node's answer). */
  'crash-before',
  /** The caller dies after the chain took its transaction. */
  'crash-after',
] as const;
export type ChainAFault = (typeof FAULTS)[number];
const RPC_FAULTS: readonly ChainAFault[] = ['rpc-timeout', 'rate-limited', 'server-error'];
const READ_FAULTS: readonly ChainAFault[] = [...RPC_FAULTS, 'lagging'];
/** The reads a `lagging` node answers from its older view (the others pass it by: a queued `lagging` waits for one of these). */
const LAGGED_READS = new Set(['getSignatureStatuses', 'getSlot', 'getBlockHeight', 'getEpochInfo']);
/** Slots an `in-flight` transaction takes to land. */
export const IN_FLIGHT_SLOTS = 3;

export interface ChainAFaultOptions {
  /** Slots a blockhash and a cached status live (150 on Solana). */
  window: number;
  /** Clock milliseconds per slot (400 on Solana); 0: slots advance by transactions (and `advanceSlots`) only. */
  slotMs: number;
  /** Slots a `lagging` node is behind the cluster. */
  lag: number;
  /** Probability of each fault per call it applies to (sends: all; reads: the RPC ones, and `lagging` for those of LAGGED_READS). */
  rates: Partial<Record<ChainAFault, number>>;
  seed: number;
}

const SETTINGS = {
  window: z.coerce.number().int().positive().default(150),
  'slot-ms': z.coerce.number().int().nonnegative().default(400),
  lag: z.coerce.number().int().positive().default(20),
};

/**
 * `CHAIN_FAULTS` for chain A: its names without prefix (or with `a.`), comma-separated `name=value`
 * (`window`, `slot-ms`, `seed`, and a rate per fault: `dropped=0.05,late=0.1,rate-limited=0.02`);
 * `on` alone for the cluster's ways without injected faults. Crashes are for tests only (a process
 * that never answers again). Names of chain B (`b.`) and the L1 (`l1.`) are theirs
 * (lib/chains/faults-config.ts). Undefined when chain A's layer is off.
 */
export function chainAFaults(text: string): ChainAFaultOptions | undefined {
  const o = layerOptions(
    text,
    'a',
    SETTINGS,
    FAULTS.filter((f) => !f.startsWith('crash')),
  );
  return o && { window: o.settings.window!, slotMs: o.settings['slot-ms']!, lag: o.settings.lag!, seed: o.seed, rates: o.rates };
}

/** Chain A's options from `CHAIN_FAULTS`, its defaults when only other layers are named. */
export const parseChainAFaults = (text: string): ChainAFaultOptions => chainAFaults(text) ?? chainAFaults('on')!;

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

export class FaultyChainA implements ChainA {
  readonly rpc: Rpc;
  /** How many of each fault were injected so far (for the chaos runs' report). */
  readonly injected: Record<ChainAFault, number> = Object.fromEntries(FAULTS.map((f) => [f, 0])) as Record<ChainAFault, number>;
  private readonly queue: { fault: ChainAFault; on: 'send' | 'read'; call?: string }[] = [];
  private readonly random: () => number;
  private readonly startedMs = clock.nowMs();
  private extraSlots = 0;
  /** Blockhash → the slot at which it was first handed out. */
  private readonly issued = new Map<string, number>();
  /** Signature → the slot at which it landed (as this layer saw it). */
  private readonly landedAt = new Map<string, number>();
  /** Sent and accepted, landing at the next call (`lands-later`) or once the cluster reaches slot `at` (`in-flight`). */
  private readonly inFlight: { tx: VersionedTransaction; at?: number }[] = [];
  /** Sends handed to the inner chain and not yet applied there. */
  private readonly applying = new Set<Promise<unknown>>();
  /** Tests: how many sends reached their crash point (the process "died" there: after the chain took it, for `crash-after`). */
  crashed = 0;

  constructor(
    private readonly inner: ChainA,
    readonly options: ChainAFaultOptions,
  ) {
    this.random = seeded(options.seed);
    this.rpc = this.faultyRpc(inner.rpc);
  }

  get network() {
    return this.inner.network;
  }
  get localTokens() {
    return this.inner.localTokens;
  }

  prepareRoute(mint: PublicKey, decimals: number, escrow?: PublicKey): Promise<void> {
    return this.inner.prepareRoute(mint, decimals, escrow);
  }

  prepareReleaseCollateral(mint: PublicKey, decimals: number, escrow: PublicKey): Promise<void> {
    return this.inner.prepareReleaseCollateral(mint, decimals, escrow);
  }

  /** Tests: the next calls of this kind (reads: of the RPC method `call`, when named) meet these faults, in order (before any by rate). */
  inject(fault: ChainAFault, on: 'send' | 'read' = 'send', call?: string): void {
    this.queue.push({ fault, on, ...(call ? { call } : {}) });
  }

  /** Tests: the signatures that landed through this layer, in order. */
  landedSignatures(): string[] {
    return [...this.landedAt.keys()];
  }

  /** Tests: no fault left queued. */
  clearInjected(): void {
    this.queue.length = 0;
  }

  /**
   * Tests: resolves once every send already handed to the inner chain is applied. A cluster applies
   * a transaction at one slot; the emulator takes a few awaits, so a test that moves slots on while
   * a send is half applied would see it land after its blockhash expired, which no cluster does.
   */
  async applied(): Promise<void> {
    while (this.applying.size) await Promise.allSettled([...this.applying]);
  }

  /** Tests: time passes on the cluster without transactions of ours. */
  advanceSlots(n: number): void {
    this.extraSlots += n;
  }

  /** The slot (and block height: one block per slot here) as the cluster reports it now. */
  async slot(): Promise<number> {
    const timeSlots = this.options.slotMs > 0 ? Math.floor((clock.nowMs() - this.startedMs) / this.options.slotMs) : 0;
    return (await this.inner.rpc.getSlot()) + this.extraSlots + Math.max(0, timeSlots);
  }

  async sendAndConfirm(tx: VersionedTransaction): Promise<SentTransaction> {
    await this.landInFlight();
    const fault = this.next('send');
    if (fault === 'crash-before') {
      this.crashed++;
      return never();
    }
    if (fault && RPC_FAULTS.includes(fault)) throw unavailable(fault);
    const signature = bs58.encode(tx.signatures[0]!);
    const now = await this.slot();
    const issued = this.issued.get(tx.message.recentBlockhash);
    if (issued !== undefined && now > issued + this.options.window) throw new ChainRejected('transaction failed: BlockhashNotFound');
    // A node behind the cluster has not seen this blockhash: its preflight refuses, and passes nothing on.
    if (fault === 'lagging' && (issued ?? now) > now - this.options.lag) throw new ChainRejected('transaction failed: BlockhashNotFound');
    if (this.inFlight.some((f) => bs58.encode(f.tx.signatures[0]!) === signature)) throw timedOut(signature); // accepted again, still in flight
    const landed = this.landedAt.get(signature);
    if (landed !== undefined) {
      if (now - landed <= this.options.window) throw new ChainRejected('transaction failed: AlreadyProcessed');
      throw new ChainRejected('transaction failed: BlockhashNotFound');
    }
    if (fault === 'dropped') throw timedOut(signature);
    if (fault === 'lands-later' || fault === 'in-flight') {
      this.inFlight.push({ tx, ...(fault === 'in-flight' ? { at: now + IN_FLIGHT_SLOTS } : {}) });
      throw timedOut(signature);
    }
    const sent = await this.apply(tx);
    if (fault === 'crash-after') {
      this.crashed++;
      return never();
    }
    if (fault === 'late') throw timedOut(signature);
    return sent;
  }

  airdrop(to: PublicKey, lamports: bigint): Promise<SentTransaction> {
    return this.inner.airdrop(to, lamports);
  }

  indexerSlot(): Promise<number> {
    return this.inner.indexerSlot();
  }

  explorerUrl(signature: string): string {
    return this.inner.explorerUrl(signature);
  }

  /**
   * Transactions accepted earlier land now (an `in-flight` one once its slot has come), unless their
   * blockhash expired before they could (then never).
   */
  private async landInFlight(): Promise<void> {
    const now = await this.slot();
    const all = this.inFlight.splice(0);
    const due = all.filter((f) => f.at === undefined || f.at <= now);
    this.inFlight.push(...all.filter((f) => !due.includes(f)));
    for (const { tx, at } of due) {
      const issued = this.issued.get(tx.message.recentBlockhash);
      if (issued !== undefined && (at ?? (await this.slot())) > issued + this.options.window) continue;
      try {
        await this.apply(tx);
      } catch {
        // refused when it came to land (its funds spent meanwhile, say): it never lands
      }
    }
  }

  /** The inner chain applies the transaction; this layer notes the slot it landed at. */
  private apply(tx: VersionedTransaction): Promise<SentTransaction> {
    const applying = (async () => {
      const sent = await this.inner.sendAndConfirm(tx);
      this.landedAt.set(sent.signature, await this.slot());
      return sent;
    })();
    this.applying.add(applying);
    void applying.catch(() => undefined).finally(() => this.applying.delete(applying));
    return applying;
  }

  /** The fault this call meets (a read: of the RPC method `call`; only those of LAGGED_READS meet `lagging`). */
  private next(on: 'send' | 'read', call?: string): ChainAFault | undefined {
    const lagged = on === 'send' || LAGGED_READS.has(call ?? '');
    const i = this.queue.findIndex((q) => q.on === on && (!q.call || q.call === call) && (lagged || q.fault !== 'lagging'));
    let fault: ChainAFault | undefined;
    if (i >= 0) fault = this.queue.splice(i, 1)[0]!.fault;
    else
      fault = drawFault(
        (on === 'send' ? FAULTS : READ_FAULTS).filter((x) => lagged || x !== 'lagging'),
        this.options.rates,
        this.random,
      );
    if (fault) this.injected[fault]++;
    return fault;
  }

  /** `behind`: slots the answering node is behind the cluster (`lagging`), 0 for an up-to-date one. */
  private faultyRpc(inner: Rpc): Rpc {
    const viewed = async (behind: number) => (await this.slot()) - behind;
    const overrides: Record<string, (behind: number, ...args: never[]) => Promise<unknown>> = {
      getSignatureStatuses: async (behind, signatures: string[], config?: SignatureStatusConfig) => {
        await this.landInFlight();
        const answer = await inner.getSignatureStatuses(signatures, config);
        const now = await viewed(behind);
        return {
          ...answer,
          context: { ...answer.context, slot: now },
          value: answer.value.map((s, i) => {
            if (!s) return s;
            const at = this.landedAt.get(signatures[i]!) ?? s.slot;
            // Not seen yet by a node behind; evicted from the recent cache unless the history is searched.
            if (at > now) return null;
            return !config?.searchTransactionHistory && now - at > this.options.window ? null : s;
          }),
        };
      },
      getLatestBlockhash: async () => {
        let { blockhash } = await inner.getLatestBlockhash();
        const now = await this.slot();
        // Slots passed since this blockhash was first handed out: a cluster has a newer one by now.
        const local = this.inner as ChainA & { advanceBlock?: () => void };
        if ((this.issued.get(blockhash) ?? now) < now && local.advanceBlock) {
          local.advanceBlock();
          ({ blockhash } = await inner.getLatestBlockhash());
        }
        if (!this.issued.has(blockhash)) this.issued.set(blockhash, now);
        return { blockhash, lastValidBlockHeight: this.issued.get(blockhash)! + this.options.window };
      },
      getSlot: (behind) => viewed(behind),
      getBlockHeight: (behind) => viewed(behind),
      // One block per slot here: the node's height and slot are the same number.
      getEpochInfo: async (behind) => {
        const slot = await viewed(behind);
        return { epoch: 0, slotIndex: slot, slotsInEpoch: 432_000, absoluteSlot: slot, blockHeight: slot };
      },
    };
    return new Proxy(inner, {
      get: (target, prop, receiver) => {
        const value: unknown = Reflect.get(target, prop, receiver);
        // Only the JSON-RPC calls (all async, all named get…) meet faults; helpers pass through as they are.
        if (typeof value !== 'function' || typeof prop !== 'string' || !prop.startsWith('get')) return typeof value === 'function' ? value.bind(target) : value;
        const own = overrides[prop];
        return async (...args: unknown[]) => {
          const fault = this.next('read', prop);
          // A crash on a read (tests: `inject('crash-before', 'read')`): the caller dies waiting for the node.
          if (fault === 'crash-before' || fault === 'crash-after') {
            this.crashed++;
            return never();
          }
          if (fault && fault !== 'lagging') throw unavailable(fault);
          // What the cluster answers includes what landed meanwhile (a balance, an account).
          if (!['getSlot', 'getBlockHeight', 'getEpochInfo', 'getLatestBlockhash'].includes(prop)) await this.landInFlight();
          return own ? own(fault === 'lagging' ? this.options.lag : 0, ...(args as never[])) : value.apply(target, args);
        };
      },
    });
  }
}

function unavailable(fault: ChainAFault): ChainUnavailable {
  if (fault === 'rate-limited') return new ChainUnavailable('chain A RPC: 429 Too Many Requests');
  if (fault === 'server-error') return new ChainUnavailable('chain A RPC: 503 Service Unavailable');
  return new ChainUnavailable('chain A RPC: request timed out');
}

const timedOut = (signature: string) => new ChainUnavailable(`transaction ${signature} was not confirmed within 25 s`);
