import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { drawFault, layerOptions, seeded } from '../faults-config.ts';
import { accountAddress, publicKeyOf } from './account.ts';
import {
  ChainBOutcomeUnknown,
  ChainBUnavailable,
  type BlockTransaction,
  type ChainB,
  type ChainBTransaction,
  type ChainBTxStatus,
  type ExecuteRequest,
  type MaxFees,
  type SignedInvoke,
  type TransferOutcome,
  type TransferRequest,
  type WarpRouteSetup,
} from './port.ts';
import { FEE_TOKEN, transferCall, type TokenInfo } from './tokens.ts';

/**
 * Chain B as a real network misbehaves, over any adapter of the port (the local ledger, or
 * `npm start` with `CHAIN_FAULTS=b.…`; docs/chain-faults.md). Blocks advance with time (one per
 * `blockMs` of the clock), one per send, and by `advanceBlocks` (tests). By rate (seeded) or one
 * at a time (`inject`), each send may meet one of `FAULTS`.
 *
 * A send held back (`pending`, `rejected`) has been signed and its hash handed to the caller's
 * `beforeSend`; the adapter's own send then waits inside this layer until its blocks have passed,
 * while the caller gets ChainBOutcomeUnknown, as from a node that kept saying RECEIVED past the
 * client's wait. Its signing key stays in that waiting call meanwhile (in this process only).
 * A crash is a call that never settles: the caller's `finally` never runs, as when its process dies.
 */
export const FAULTS = [
  /** Received, executed only `pendingBlocks` blocks later (the client's wait ends first). */
  'pending',
  /** Received, then REJECTED `pendingBlocks` blocks later: never executed, nothing changed, its nonce unused, no fee. */
  'rejected',
  /** Executed and REVERTED with a reason (its balance moved between the client's check and the execution): fee charged, nonce used. */
  'reverted',
  /** Its nonce used by another transaction of the same account just before it arrives: refused as INVALID_TRANSACTION_NONCE. */
  'nonce-used',
  /**
   * The same signed INVOKE sent again first — by a settle pass that found it not received yet (the
   * relayer, another request finding the wallet held) — and included; its own send, arriving next,
   * is refused as INVALID_TRANSACTION_NONCE: its nonce was taken by itself.
   */
  'copy-first',
  /** Accepted by the gateway but never received by the node: the caller gets no answer, the node never hears of it (a resend of the same signed INVOKE is received). */
  'dropped',
  /** The caller dies after the INVOKE was signed and handed to `beforeSend`, before it reaches the node. */
  'crash-before',
  /** The caller dies after chain B took its transaction. */
  'crash-after',
] as const;
export type ChainBFault = (typeof FAULTS)[number];

/**
 * A read answered by a node `lag-blocks` blocks behind the latest (one of several behind a
 * provider's load balancer, each call to any of them): its head and the nonces at the latest block
 * are its older ones; a transaction accepted in the blocks it has not reached is unknown to it
 * (NOT_RECEIVED, no receipt); a block it has not reached is BLOCK_NOT_FOUND. Sends pass it by.
 */
export const READ_FAULTS = ['lagging'] as const;
type LaggedRead = 'getTransaction' | 'getTransactionStatus' | 'getNonce' | 'blockNumber' | 'blockTransactions';

export interface ChainBFaultOptions {
  /** Blocks a `pending` or `rejected` transaction stays RECEIVED. */
  pendingBlocks: number;
  /** Clock milliseconds per block; 0: blocks advance by sends (and `advanceBlocks`) only. */
  blockMs: number;
  /** Blocks a `lagging` node is behind the latest. */
  lagBlocks: number;
  rates: Partial<Record<ChainBFault | (typeof READ_FAULTS)[number], number>>;
  seed: number;
}

const SETTINGS = {
  'pending-blocks': z.coerce.number().int().positive().max(10_000).default(3),
  'block-ms': z.coerce.number().int().nonnegative().default(6000),
  'lag-blocks': z.coerce.number().int().positive().max(10_000).default(3),
};

/** Chain B's options from `CHAIN_FAULTS` (its `b.` names); undefined when its layer is off. */
export function chainBFaults(text: string): ChainBFaultOptions | undefined {
  const o = layerOptions(text, 'b', SETTINGS, [...FAULTS.filter((f) => !f.startsWith('crash')), ...READ_FAULTS]);
  return (
    o && { pendingBlocks: o.settings['pending-blocks']!, blockMs: o.settings['block-ms']!, lagBlocks: o.settings['lag-blocks']!, seed: o.seed, rates: o.rates }
  );
}

/** A send held back: it lands (or is rejected) once the chain reaches block `at`. */
interface Held {
  txHash: string;
  at: number;
  land: boolean;
  open: () => void;
  refuse: (e: Error) => void;
  /** The adapter's send, settling once opened. */
  done: Promise<unknown>;
}

class Rejected extends Error {}
/** The send cut off after `beforeSend` (dropped on its way, or its caller dead). */
class CutOff extends Error {}
const never = () => new Promise<never>(() => undefined);

/** A call of the ERC-20 transfer that cannot succeed: more than any balance (u128 max). */
const overdraw = (from: string) => transferCall(FEE_TOKEN.address, from, (1n << 128n) - 1n);

export class FaultyChainB implements ChainB {
  /** How many of each fault were injected so far (for the chaos runs' report); `lagging`: reads a node behind answered. */
  readonly injected: Record<ChainBFault | (typeof READ_FAULTS)[number], number> = Object.fromEntries([...FAULTS, ...READ_FAULTS].map((f) => [f, 0])) as Record<
    ChainBFault | (typeof READ_FAULTS)[number],
    number
  >;
  private readonly queue: ChainBFault[] = [];
  private readonly random: () => number;
  private readonly startedMs = clock.nowMs();
  private sends = 0;
  private extraBlocks = 0;
  private readonly held: Held[] = [];
  private readonly rejected = new Set<string>();
  /** Tests: how many sends reached their crash point (the process "died" there: after chain B took it, for `crash-after`). */
  crashed = 0;
  /** Reads queued to be answered by a `lagging` node (each of the one read named, or of any). */
  private readonly laggingQueued: (LaggedRead | undefined)[] = [];

  constructor(
    readonly inner: ChainB,
    readonly options: ChainBFaultOptions,
  ) {
    this.random = seeded(options.seed);
  }

  get adapter() {
    return this.inner.adapter;
  }

  /** Tests: the next sends meet these faults, in order (before any by rate). */
  inject(...faults: ChainBFault[]): void {
    this.queue.push(...faults);
  }

  clearInjected(): void {
    this.queue.length = 0;
    this.laggingQueued.length = 0;
  }

  /** Tests: the next `n` reads (of `read` only, when named) are answered by a `lagging` node. */
  lagNextReads(n: number, read?: LaggedRead): void {
    for (let i = 0; i < n; i++) this.laggingQueued.push(read);
  }

  /** Tests: blocks pass on chain B without transactions of ours; what is due lands (or is rejected). */
  async advanceBlocks(n: number): Promise<void> {
    this.extraBlocks += n;
    await this.tick();
  }

  /** Tests: the hashes still held back. */
  heldBack(): string[] {
    return this.held.map((h) => h.txHash);
  }

  block(): number {
    const timeBlocks = this.options.blockMs > 0 ? Math.floor((clock.nowMs() - this.startedMs) / this.options.blockMs) : 0;
    return this.sends + this.extraBlocks + Math.max(0, timeBlocks);
  }

  async tokenInfo(address: string): Promise<TokenInfo | undefined> {
    await this.tick();
    return this.inner.tokenInfo(address);
  }

  async balanceOf(token: string, address: string): Promise<bigint> {
    await this.tick();
    return this.inner.balanceOf(token, address);
  }

  async isDeployed(address: string): Promise<boolean> {
    await this.tick();
    return this.inner.isDeployed(address);
  }

  maxFees(): Promise<MaxFees | undefined> {
    return this.inner.maxFees();
  }

  faucet(token: string, to: string, amount: bigint): Promise<{ txHash: string }> {
    return this.inner.faucet(token, to, amount);
  }

  prepareWarpRoute(router: string, route: WarpRouteSetup): Promise<void> {
    return this.inner.prepareWarpRoute(router, route);
  }

  transfer(req: TransferRequest): Promise<TransferOutcome> {
    return this.execute({ privateKey: req.privateKey, calls: [transferCall(req.token, req.to, req.amount)] });
  }

  async execute(req: ExecuteRequest): Promise<TransferOutcome> {
    await this.tick();
    this.sends++;
    const fault = this.next();
    if (!fault) return this.inner.execute(req);
    const from = accountAddress(publicKeyOf(req.privateKey));
    if (fault === 'reverted') return this.inner.execute({ ...req, calls: [...req.calls, overdraw(from)] });
    if (fault === 'nonce-used') {
      return this.inner.execute({
        ...req,
        beforeSend: async (txHash, signed) => {
          await req.beforeSend?.(txHash, signed);
          // Another signer of the account gets there first with the same nonce: a zero transfer to itself.
          await this.inner.execute({ privateKey: req.privateKey, calls: [transferCall(FEE_TOKEN.address, from, 0n)] });
        },
      });
    }
    if (fault === 'copy-first') {
      return this.inner.execute({
        ...req,
        beforeSend: async (txHash, signed) => {
          await req.beforeSend?.(txHash, signed);
          await this.inner.resend(signed);
        },
      });
    }
    if (fault === 'crash-after') {
      await this.inner.execute(req).catch(() => undefined);
      this.crashed++;
      return never();
    }
    if (fault === 'dropped' || fault === 'crash-before') return this.cutOff(req, fault);
    return this.holdBack(req, fault === 'pending');
  }

  /** Signed and handed to `beforeSend`, never sent on: the caller hears nothing (`dropped`), or is gone (`crash-before`). */
  private async cutOff(req: ExecuteRequest, fault: 'dropped' | 'crash-before'): Promise<TransferOutcome> {
    let txHash: string | undefined;
    try {
      return await this.inner.execute({
        ...req,
        beforeSend: async (hash, signed) => {
          await req.beforeSend?.(hash, signed);
          txHash = hash;
          throw new CutOff();
        },
      });
    } catch (e) {
      if (!(e instanceof CutOff) || !txHash) throw e;
    }
    if (fault === 'crash-before') {
      this.crashed++;
      return never();
    }
    throw new ChainBOutcomeUnknown(txHash, undefined, 'accepted by the gateway, no answer since');
  }

  async resend(signed: SignedInvoke): Promise<void> {
    await this.tick();
    return this.inner.resend(signed);
  }

  async getTransaction(hash: string): Promise<ChainBTransaction | null> {
    await this.tick();
    const head = await this.head('getTransaction');
    const tx = await this.inner.getTransaction(hash);
    return tx && tx.blockNumber !== null && tx.blockNumber > head ? null : tx;
  }

  async getTransactionStatus(hash: string): Promise<ChainBTxStatus> {
    await this.tick();
    const head = await this.head('getTransactionStatus');
    const h = BigInt(hash);
    if (this.held.some((x) => BigInt(x.txHash) === h)) return 'RECEIVED';
    const inner = await this.inner.getTransactionStatus(hash);
    // A node behind has not seen the block it was accepted in.
    if (inner === 'ACCEPTED' && head < Infinity && ((await this.inner.getTransaction(hash))?.blockNumber ?? 0) > head) return 'NOT_RECEIVED';
    // REJECTED leaves the nonce unused: the same INVOKE sent again has the same hash, and may be accepted.
    if (inner !== 'ACCEPTED' && [...this.rejected].some((x) => BigInt(x) === h)) return 'REJECTED';
    return inner;
  }

  async getNonce(address: string, block?: number): Promise<bigint> {
    await this.tick();
    const head = await this.head('getNonce');
    if (block === undefined) return head < Infinity ? this.inner.getNonce(address, head) : this.inner.getNonce(address);
    this.reached(block, head);
    return this.inner.getNonce(address, block);
  }

  async blockNumber(): Promise<number> {
    await this.tick();
    const head = await this.head('blockNumber');
    return head < Infinity ? head : this.inner.blockNumber();
  }

  async blockTransactions(block: number): Promise<BlockTransaction[]> {
    await this.tick();
    this.reached(block, await this.head('blockTransactions'));
    return this.inner.blockTransactions(block);
  }

  /** The latest block of the node answering this read: a `lagging` one's, `lag-blocks` behind; Infinity for one up to date. */
  private async head(read: LaggedRead): Promise<number> {
    const at = this.laggingQueued.findIndex((q) => q === undefined || q === read);
    const queued = at >= 0;
    if (queued) this.laggingQueued.splice(at, 1);
    const rate = this.options.rates.lagging ?? 0;
    // Drawn only when the rate is set: the send faults' seeded schedule stays what it was without it.
    if (!queued && !(rate > 0 && this.random() < rate)) return Infinity;
    this.injected.lagging++;
    return Math.max(0, (await this.inner.blockNumber()) - this.options.lagBlocks);
  }

  private reached(block: number, head: number): void {
    if (block > head) throw new ChainBUnavailable(`BLOCK_NOT_FOUND: block ${block} is past this node's latest (${head})`);
  }

  /** The send signed and its hash handed over, then held inside `beforeSend` until its blocks pass. */
  private async holdBack(req: ExecuteRequest, land: boolean): Promise<TransferOutcome> {
    let known!: (h: string) => void;
    const hash = new Promise<string>((r) => (known = r));
    let open!: () => void;
    let refuse!: (e: Error) => void;
    const gate = new Promise<void>((ok, no) => ((open = ok), (refuse = no)));
    const run = this.inner.execute({
      ...req,
      beforeSend: async (txHash, signed) => {
        await req.beforeSend?.(txHash, signed);
        known(txHash);
        await gate;
      },
    });
    const first = await Promise.race([
      run.then(
        (out) => ({ out }),
        (error: unknown) => ({ error }),
      ),
      hash.then((txHash) => ({ txHash })),
    ]);
    if ('out' in first) return first.out; // settled before its hash was out (a deploy reverted, say)
    if ('error' in first) throw first.error;
    this.held.push({ txHash: first.txHash, at: this.block() + this.options.pendingBlocks, land, open, refuse, done: run.catch(() => undefined) });
    throw new ChainBOutcomeUnknown(first.txHash, undefined, `RECEIVED; not accepted within the client's wait`);
  }

  /** What is due at this block: landed (its send let through) or rejected (never sent on). */
  private async tick(): Promise<void> {
    const now = this.block();
    const due = this.held.filter((h) => h.at <= now);
    if (!due.length) return;
    for (const h of due) this.held.splice(this.held.indexOf(h), 1);
    for (const h of due) {
      if (h.land) h.open();
      else {
        this.rejected.add(h.txHash);
        h.refuse(new Rejected(`chain B REJECTED ${h.txHash}`));
      }
      await h.done;
    }
  }

  private next(): ChainBFault | undefined {
    const fault = this.queue.shift() ?? drawFault(FAULTS, this.options.rates, this.random);
    if (fault) this.injected[fault]++;
    return fault;
  }
}
