import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Keypair, SystemProgram, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RpcChainA } from '#lib/chains/chain-a/rpc.ts';
import { settle } from '#lib/chains/chain-a/settle.ts';

/**
 * The settle rule (lib/chains/chain-a/settle.ts) through the chain A rpc adapter, offline: a
 * loopback JSON-RPC endpoint answers as a Solana node does when the cluster misbehaves (issue 36;
 * the local layer is lib/chains/chain-a/faults.ts) and keeps every request, so the test sees what
 * the adapter asks: statuses only in the history (the recent cache evicted), BlockhashNotFound on
 * the resend of a transaction that landed, 429 and 5xx from the provider.
 */
interface Call {
  method: string;
  params: any[];
}
const node = {
  height: 10_000,
  /** The transaction's status as the node's recent cache has it (null: evicted or never seen). */
  cached: null as null | { slot: number },
  /** Its status in the ledger's history (what searchTransactionHistory finds). */
  history: null as null | { slot: number },
  /** The history search finds nothing the first `historyLag` times (its index catching up). */
  historyLag: 0,
  /** Slots behind `height` of the node answering status reads (one behind a provider's load balancer). */
  statusBehind: 0,
  /** An HTTP status answered to every request while set (429, 503). */
  httpStatus: undefined as number | undefined,
  sendError: { code: -32002, message: 'Transaction simulation failed: Blockhash not found', data: { err: 'BlockhashNotFound', logs: [] } },
};
const calls: Call[] = [];
let server: Server;
let chain: RpcChainA;

function answer(method: string, params: any[]): { result?: unknown; error?: unknown } {
  const status = (s: { slot: number }) => ({ slot: s.slot, confirmations: null, err: null, status: { Ok: null }, confirmationStatus: 'finalized' });
  switch (method) {
    case 'getSignatureStatuses': {
      const history = params[1]?.searchTransactionHistory === true;
      let s = history ? node.history : node.cached;
      if (history && node.historyLag > 0) {
        node.historyLag--;
        s = null;
      }
      const seenAt = node.height - node.statusBehind;
      if (s && s.slot > seenAt) s = null; // landed after the slot this node has reached
      return { result: { context: { slot: seenAt }, value: (params[0] as string[]).map(() => (s ? status(s) : null)) } };
    }
    case 'getBlockHeight':
      return { result: node.height };
    case 'getEpochInfo':
      // One block per slot on this node: height and slot the same number.
      return { result: { epoch: 0, slotIndex: node.height, slotsInEpoch: 432_000, absoluteSlot: node.height, blockHeight: node.height, transactionCount: 1 } };
    case 'sendTransaction':
      return { error: node.sendError };
    default:
      return { error: { code: -32601, message: `Method not found: ${method}` } };
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const msg = JSON.parse(body) as { id: unknown; method: string; params?: any[] };
      calls.push({ method: msg.method, params: msg.params ?? [] });
      if (node.httpStatus) {
        res.writeHead(node.httpStatus, { 'content-type': 'text/plain' }).end(node.httpStatus === 429 ? 'Too Many Requests' : 'Service Unavailable');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...answer(msg.method, msg.params ?? []) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  chain = new RpcChainA({ network: 'devnet', rpcUrl: url, indexerUrl: url, proverUrl: url, confirmTimeoutMs: 300, pollMs: 20 });
});
afterAll(() => new Promise((r) => server?.close(r)));
beforeEach(() => {
  calls.length = 0;
  Object.assign(node, { height: 10_000, cached: null, history: null, historyLag: 0, statusBehind: 0, httpStatus: undefined });
});

/** A signed transfer, as the journal records it: its signature and its bytes. */
function signed() {
  const payer = Keypair.generate();
  const message = new TransactionMessage({
    payerKey: payer.publicKey,
    recentBlockhash: bs58.encode(Buffer.alloc(32, 9)),
    instructions: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 5000 })],
  }).compileToV0Message();
  const tx = new VersionedTransaction(message);
  tx.sign([payer]);
  return { signature: bs58.encode(tx.signatures[0]!), bytes: Buffer.from(tx.serialize()).toString('base64') };
}
const statusCalls = () => calls.filter((c) => c.method === 'getSignatureStatuses');

describe('chain A rpc adapter: settling a recorded transaction (recorded answers)', () => {
  it('a status only the history has (evicted from the recent cache): landed, asked with searchTransactionHistory, nothing sent again', async () => {
    node.history = { slot: 9_850 };
    const t = signed();
    // What the node's recent cache says (the question lib/transfer used to ask): nothing.
    expect((await chain.rpc.getSignatureStatuses([t.signature])).value[0]).toBeNull();
    calls.length = 0;
    expect(await settle(chain, { ...t, lastValidBlockHeight: 9_990 })).toEqual({ kind: 'landed', slot: 9_850 });
    expect(statusCalls().map((c) => c.params)).toEqual([[[t.signature], { searchTransactionHistory: true }]]);
    expect(calls.map((c) => c.method)).not.toContain('sendTransaction');
  });

  it('past its last valid height with no status in the history: expired — only then', async () => {
    const t = signed();
    expect(await settle(chain, { ...t, lastValidBlockHeight: 9_990 })).toEqual({ kind: 'expired' });
    // Two history searches around the height: the second made after the height (and its slot) was read.
    expect(calls.map((c) => c.method)).toEqual(['getSignatureStatuses', 'getEpochInfo', 'getSignatureStatuses']);
    expect(statusCalls().every((c) => c.params[1]?.searchTransactionHistory === true)).toBe(true);
    // Not yet past it: pending, and the same bytes sent again (refused here: still pending).
    calls.length = 0;
    expect(await settle(chain, { ...t, lastValidBlockHeight: 10_100 })).toEqual({ kind: 'pending' });
    expect(calls.map((c) => c.method)).toContain('sendTransaction');
  });

  it('BlockhashNotFound on the resend, recorded without a last valid height: pending, never expired and never signed again', async () => {
    // A record from before heights were kept: a refusal is all it would have to go on, and says nothing
    // (a node behind the cluster answers it for a blockhash the cluster still takes).
    const t = signed();
    expect(await settle(chain, t)).toEqual({ kind: 'pending' });
    expect(calls.map((c) => c.method)).toEqual(['getSignatureStatuses', 'sendTransaction']);
    const [sent] = calls.filter((c) => c.method === 'sendTransaction');
    expect(sent!.params[0]).toBe(t.bytes); // the very same bytes, not a new signature
    // Its history found later: landed.
    node.history = { slot: 9_700 };
    expect(await settle(chain, t)).toEqual({ kind: 'landed', slot: 9_700 });
  });

  it('past its last valid height, the history search answered by a node behind the slot the height was read at: pending; expired once a node that has reached it finds nothing', async () => {
    node.history = { slot: 9_985 }; // landed before its last valid height, after the slot the node behind has reached
    node.statusBehind = 20;
    const t = signed();
    expect(await settle(chain, { ...t, lastValidBlockHeight: 9_990 })).toEqual({ kind: 'pending' });
    node.statusBehind = 0;
    expect(await settle(chain, { ...t, lastValidBlockHeight: 9_990 })).toEqual({ kind: 'landed', slot: 9_985 });
    node.history = null;
    expect(await settle(chain, { ...t, lastValidBlockHeight: 9_990 })).toEqual({ kind: 'expired' });
  });

  it('429 and 5xx from the provider: ChainUnavailable, nothing decided (the job asks again), then settled once the node answers', async () => {
    node.history = { slot: 9_900 };
    const t = signed();
    for (const status of [429, 503]) {
      node.httpStatus = status;
      const e = await settle(chain, { ...t, lastValidBlockHeight: 9_990 }).catch((x: unknown) => x);
      expect(e).toMatchObject({ name: 'ChainUnavailable', message: expect.stringContaining(String(status)) });
    }
    // No retry storm against a rate-limited provider: one request per attempt (disableRetryOnRateLimit).
    expect(calls).toHaveLength(2);
    node.httpStatus = undefined;
    expect(await settle(chain, { ...t, lastValidBlockHeight: 9_990 })).toEqual({ kind: 'landed', slot: 9_900 });
  });
});
