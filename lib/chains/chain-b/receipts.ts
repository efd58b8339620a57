import type { RpcProvider } from 'starknet';
import { toHex64 } from './felts.ts';

/** What the callers read of a receipt. */
export interface AcceptedReceipt {
  execution_status?: string;
  revert_reason?: string;
  actual_fee?: { amount: string };
}

/** No accepted receipt before the deadline: the transaction may still land. */
export class ReceiptTimeout extends Error {
  constructor(
    readonly txHash: string,
    waitedMs: number,
    readonly last: unknown,
  ) {
    super(`no receipt for ${toHex64(txHash)} within ${waitedMs} ms${last instanceof Error ? ` (${last.message})` : ''}`, { cause: last });
  }
}

/** Chain B refused the transaction after receiving it (REJECTED): it never ran, nothing changed. */
export class ReceiptRejected extends Error {
  constructor(
    readonly txHash: string,
    readonly reason: string | undefined,
  ) {
    super(`chain B REJECTED the transaction ${toHex64(txHash)}${reason ? `: ${reason}` : ''}`);
  }
}

export const ACCEPTED = new Set(['ACCEPTED_ON_L2', 'ACCEPTED_ON_L1']);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls for `txHash` until the node has it accepted on L2, then returns its receipt (succeeded or
 * reverted: the caller decides), or throws ReceiptRejected as soon as the node says REJECTED (a
 * definite refusal: waiting it out would hold the wallet as for an unknown outcome), or
 * ReceiptTimeout at `deadline`. A node error between
 * polls is a blip while the deadline lasts. starknet.js's `waitForTransaction` is not used: it has
 * no deadline (it polls on while the node answers RECEIVED), and a function cut off by its own
 * timeout answers nothing useful.
 */
export async function acceptedReceipt(provider: RpcProvider, txHash: string, opts: { pollMs: number; deadline: number }): Promise<AcceptedReceipt> {
  const started = Date.now();
  let last: unknown;
  let rejected: ReceiptRejected | undefined;
  for (;;) {
    await sleep(opts.pollMs);
    try {
      const status = (await provider.getTransactionStatus(txHash)) as { finality_status: string; failure_reason?: string };
      if (ACCEPTED.has(status.finality_status)) return (await provider.getTransactionReceipt(txHash)).value as AcceptedReceipt;
      if (status.finality_status === 'REJECTED') rejected = new ReceiptRejected(txHash, status.failure_reason);
    } catch (e) {
      last = e; // not known to the node yet, or the node unreachable for a moment
    }
    if (rejected) throw rejected;
    if (Date.now() >= opts.deadline) throw new ReceiptTimeout(txHash, Date.now() - started, last);
  }
}
