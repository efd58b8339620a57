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
  /** An HTTP status answered to every request while set (429, 503). */
  httpStatus: undefined as number | undefined,
  sendError: { code: -32002, message: 'Transaction simulation failed: Blockhash not found', data: { err: 'BlockhashNotFound', logs: [] } },
};
const calls: Call[] = [];
let server: Server;
let chain: RpcChainA;

function answer(method: string, params: any[]): { result?: unknown; error?: unknown } {
  const context = { slot: node.height };
  const status = (s: { slot: number }) => ({ slot: s.slot, confirmations: null, err: null, status: { Ok: null }, confirmationStatus: 'finalized' });
  switch (method) {
    case 'getSignatureStatuses': {
      const history = params[1]?.searchTransactionHistory === true;
      let s = history ? node.history : node.cached;
      if (history && node.historyLag > 0) {
        node.historyLag--;
        s = null;
      }
      return { result: { context, value: (params[0] as string[]).map(() => (s ? status(s) : null)) } };
    }
    case 'getBlockHeight':
      return { result: node.height };
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
  Object.assign(node, { height: 10_000, cached: null, history: null, historyLag: 0, httpStatus: undefined });
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
    // Two history searches around the height: the second made after the height was read.
    expect(calls.map((c) => c.method)).toEqual(['getSignatureStatuses', 'getBlockHeight', 'getSignatureStatuses']);
    expect(statusCalls().every((c) => c.params[1]?.searchTransactionHistory === true)).toBe(true);
    // Not yet past it: pending, and the same bytes sent again (refused here: still pending).
    calls.length = 0;
    expect(await settle(chain, { ...t, lastValidBlockHeight: 10_100 })).toEqual({ kind: 'pending' });
    expect(calls.map((c) => c.method)).toContain('sendTransaction');
  });

  it('BlockhashNotFound on the resend of a transaction that landed: landed by the history, never expired and never signed again', async () => {
    // A record from before heights were kept: the resend's refusal is all it has to go on.
    node.history = { slot: 9_700 };
    node.historyLag = 1; // the first history search comes back empty (its index behind), the next finds it
    const t = signed();
    expect(await settle(chain, t)).toEqual({ kind: 'landed', slot: 9_700 });
    expect(calls.map((c) => c.method)).toEqual(['getSignatureStatuses', 'sendTransaction', 'getSignatureStatuses']);
    const [sent] = calls.filter((c) => c.method === 'sendTransaction');
    expect(sent!.params[0]).toBe(t.bytes); // the very same bytes, not a new signature
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
