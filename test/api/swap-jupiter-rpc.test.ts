import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MessageV0, PublicKey, VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * Swaps through Jupiter go through the value-move journal (lib/swap/aggregator.ts,
 * lib/moves/journal.ts): offline, with Jupiter's recorded answers (test/unit/swap/recorded/) on one
 * loopback server and a devnet cluster answering Solana's JSON-RPC shapes on another (as
 * test/api/compression-rpc.test.ts). The transaction Jupiter builds is signed by the wallet,
 * recorded with its bytes and Jupiter's `lastValidBlockHeight` before it reaches the cluster, and
 * only the cluster's word settles it: landed, or expired past that height with no status in the
 * history — never the lost answer of a send.
 */
const recorded = (f: string) => JSON.parse(readFileSync(new URL(`../unit/swap/recorded/${f}`, import.meta.url), 'utf8'));
const QUOTE = recorded('jupiter-quote.json');
const SWAP = recorded('jupiter-swap.json');
const LAST_VALID: number = SWAP.lastValidBlockHeight;

/** The cluster as its recorded answers give it. */
const cluster = {
  height: LAST_VALID - 100,
  /** The next send: taken and confirmed; taken and its answer lost (HTTP 503); or never taken. */
  next: 'lands' as 'lands' | 'answer-lost' | 'dropped',
  /** Account reads answer 503 from the next send that lands until cleared (a node failing reads after the swap). */
  readsFailAfterSend: false,
  readsDown: false,
};
/** Signatures the cluster took: their status is known (history searched or not). */
const landed = new Set<string>();
const sent: { bytes: string; recordedBefore: unknown }[] = [];
const methods: string[] = [];

let swaps = 0;
/** The recorded swap for `user`, on a blockhash of its own (as Jupiter builds each on a recent one). */
function rekeyed(user: PublicKey): string {
  const m = VersionedTransaction.deserialize(Buffer.from(SWAP.swapTransaction, 'base64')).message as MessageV0;
  const copy = new MessageV0({
    header: m.header,
    staticAccountKeys: [user, ...m.staticAccountKeys.slice(1)],
    recentBlockhash: bs58.encode(Buffer.alloc(32, ++swaps)),
    compiledInstructions: m.compiledInstructions,
    addressTableLookups: m.addressTableLookups,
  });
  return Buffer.from(new VersionedTransaction(copy).serialize()).toString('base64');
}

async function answer(method: string, params: unknown[]): Promise<{ result?: unknown; error?: unknown } | 'http-503'> {
  const context = { slot: cluster.height };
  switch (method) {
    case 'getBalance':
      return { result: { context, value: 5_000_000_000 } };
    case 'getAccountInfo':
      return cluster.readsDown ? 'http-503' : { result: { context, value: null } };
    case 'getBlockHeight':
      return { result: cluster.height };
    case 'getEpochInfo':
      return {
        result: { epoch: 0, slotIndex: cluster.height, slotsInEpoch: 432_000, absoluteSlot: cluster.height, blockHeight: cluster.height, transactionCount: 1 },
      };
    case 'sendTransaction': {
      const bytes = params[0] as string;
      const signature = bs58.encode(VersionedTransaction.deserialize(Buffer.from(bytes, 'base64')).signatures[0]!);
      // What the service had recorded of this transaction when it reached the cluster.
      const { getMove } = await import('#lib/data/value-moves.ts');
      sent.push({ bytes, recordedBefore: await getMove(signature) });
      const next = cluster.next;
      cluster.next = 'lands';
      if (next === 'dropped') return 'http-503';
      landed.add(signature);
      cluster.height += 1;
      if (cluster.readsFailAfterSend) cluster.readsDown = true;
      return next === 'answer-lost' ? 'http-503' : { result: signature };
    }
    case 'getSignatureStatuses':
      return {
        result: {
          context,
          value: (params[0] as string[]).map((s) =>
            landed.has(s) ? { slot: cluster.height, confirmations: 0, err: null, status: { Ok: null }, confirmationStatus: 'confirmed' } : null,
          ),
        },
      };
    default:
      return { error: { code: -32601, message: `Method not found: ${method}` } };
  }
}

let jupiter: Server;
let rpc: Server;
let rt: TestRuntime;
let alice: HttpClient;
let wallet: { id: string; address: string };

const listen = async (s: Server) => {
  await new Promise<void>((done) => s.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  jupiter = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.url!.startsWith('/swap/v1/quote')) return res.end(JSON.stringify(QUOTE));
      res.end(JSON.stringify({ ...SWAP, swapTransaction: rekeyed(new PublicKey(JSON.parse(body).userPublicKey)) }));
    });
  });
  rpc = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', async () => {
      const msg = JSON.parse(body) as { id: unknown; method: string; params?: unknown[] };
      methods.push(msg.method);
      const out = await answer(msg.method, msg.params ?? []);
      if (out === 'http-503') return res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream unavailable');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...out }));
    });
  });
  const jupiterUrl = `${await listen(jupiter)}/swap/v1`;
  rt = await startTestRuntime(
    { CHAIN_A_NETWORK: 'devnet', CHAIN_A_RPC_URL: await listen(rpc), SWAP_ADAPTER: 'jupiter', JUPITER_API_URL: jupiterUrl, RATE_LIMIT_MULTIPLIER: '20' },
    undefined,
    {
      withoutJobs: ['transfer-retry'],
    },
  );
  alice = rt.client();
  await signedInUser(alice);
  wallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
}, 120_000);
afterAll(async () => {
  await rt?.stop();
  await Promise.all([jupiter, rpc].map((s) => new Promise((r) => s?.close(r))));
});
beforeEach(() => {
  advanceClock(61_000);
  methods.length = 0;
});

const quote = async () => {
  const q = await alice.post('/api/swap/quote', { walletId: wallet.id, from: 'SOL', to: 'USDC', amount: 0.0000001, slippageBps: 100 });
  expect(q.status, JSON.stringify(q.json)).toBe(200);
  return q.json.quoteId as string;
};
const execute = (quoteId: string, key: string) => alice.request('POST', '/api/swap/execute', { json: { quoteId }, headers: { 'idempotency-key': key } });
const order = async (id: string) => (await alice.get(`/api/swap/orders/${id}`)).json.order;
const move = async (txHash: string) => (await import('#lib/data/value-moves.ts')).getMove(txHash);
const retryJob = async () => {
  advanceClock(61_000);
  return (await import('#lib/transfer/retry.ts')).retryTransfersOnce();
};

describe('Jupiter swaps in the value-move journal (recorded answers)', () => {
  it("recorded with its signed bytes and Jupiter's lastValidBlockHeight before the send; landed: 200, the order executed, the move landed", async () => {
    const id = await quote();
    const x = await execute(id, 'jup-lands');
    expect(x.status, JSON.stringify(x.json)).toBe(200);
    const last = sent.at(-1)!;
    expect(bs58.encode(VersionedTransaction.deserialize(Buffer.from(last.bytes, 'base64')).signatures[0]!)).toBe(x.json.txHash);
    expect(last.recordedBefore).toMatchObject({
      txHash: x.json.txHash,
      status: 'sent',
      signedTx: last.bytes,
      lastValidBlockHeight: LAST_VALID,
      walletId: wallet.id,
    });
    expect(await move(x.json.txHash)).toMatchObject({ status: 'landed' });
    expect(await order(id)).toMatchObject({ status: 'executed', txHash: x.json.txHash });
  });

  it("landed, then the node fails the balance read: 200 with the quote's amount, the order executed (not failed), the key keeps that answer", async () => {
    const id = await quote();
    cluster.readsFailAfterSend = true;
    let x: Awaited<ReturnType<typeof execute>>;
    try {
      x = await execute(id, 'jup-lands-read-fails');
    } finally {
      cluster.readsFailAfterSend = false;
      cluster.readsDown = false;
    }
    expect(x.status, JSON.stringify(x.json)).toBe(200);
    expect(await order(id)).toMatchObject({ status: 'executed', txHash: x.json.txHash });
    const again = await execute(id, 'jup-lands-read-fails');
    expect(again.status).toBe(200);
    expect(again.json.txHash).toBe(x.json.txHash);
  });

  it('the cluster took it and the answer was lost: 202 submitted; the key and the wallet stay bound to it; the journal executes the order once it sees it landed', async () => {
    const id = await quote();
    cluster.next = 'answer-lost';
    const x = await execute(id, 'jup-lost');
    expect(x.status, JSON.stringify(x.json)).toBe(202);
    expect(x.json).toMatchObject({ status: 'submitted', txHash: expect.any(String) });
    const sends = sent.length;
    // The same key: the 202 again, never a second transaction.
    const again = await execute(id, 'jup-lost');
    expect([again.status, again.json.txHash]).toEqual([202, x.json.txHash]);
    expect(sent.length).toBe(sends);
    expect(await order(id)).toMatchObject({ status: 'executing' });

    const report = await retryJob();
    expect(report.moves).toMatchObject({ landed: 1 });
    expect(methods).toContain('getSignatureStatuses');
    expect(await move(x.json.txHash)).toMatchObject({ status: 'landed' });
    expect(await order(id)).toMatchObject({ status: 'executed', txHash: x.json.txHash });
  });

  it('never taken: pending while its blockhash may still land, expired only past its lastValidBlockHeight with no status in the history; the order failed EXPIRED, the wallet free', async () => {
    const id = await quote();
    cluster.next = 'dropped';
    const x = await execute(id, 'jup-dropped');
    expect(x.status, JSON.stringify(x.json)).toBe(202);
    // Still valid: the journal sends the very same bytes again (the cluster takes a transaction once).
    cluster.next = 'dropped';
    expect((await retryJob()).moves).toMatchObject({ pending: 1 });
    expect(sent.at(-1)!.bytes).toBe(sent.at(-2)!.bytes);
    expect(await order(id)).toMatchObject({ status: 'executing' });
    // The wallet is held for it: another swap waits (its request asks the cluster first, which still cannot tell).
    cluster.next = 'dropped';
    const other = await execute(await quote(), 'jup-other');
    expect([other.status, other.json.error]).toEqual([409, 'WALLET_LOCKED']);
    cluster.next = 'lands';

    cluster.height = LAST_VALID + 1;
    expect((await retryJob()).moves).toMatchObject({ expired: 1 });
    expect(await move(x.json.txHash)).toMatchObject({ status: 'expired' });
    expect(await order(id)).toMatchObject({ status: 'failed', failure: 'EXPIRED' });
    cluster.height = LAST_VALID - 50;
    const next = await execute(await quote(), 'jup-after');
    expect(next.status, JSON.stringify(next.json)).toBe(200);
  });
});
