/**
 * The rpc adapter of chain A, offline: the service runs with CHAIN_A_NETWORK=devnet against a
 * loopback JSON-RPC endpoint that answers with Solana's and Photon's response shapes and keeps
 * every request, so the test sees exactly which calls the adapter makes and which signed
 * transactions it sends — and how it answers when the indexer is behind (INDEXER_SYNC), when the
 * cluster refuses a transaction, and when the chain cannot be reached (RPC_ERROR).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicKey, verify } from 'node:crypto';
import { LightSystemProgram } from '@lightprotocol/stateless.js';
import { ComputeBudgetProgram, PublicKey, VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';

interface Call {
  method: string;
  params: unknown;
}

/** The cluster's state as the recorded answers give it. */
const cluster = {
  slot: 5_000,
  /** How many slots the indexer trails the node. */
  indexerLag: 0,
  balance: 0,
  compressed: 0,
  /** A JSON-RPC error for the next sendTransaction (a failed preflight), once. */
  refuseNext: undefined as undefined | { code: number; message: string; data: unknown },
  /** HTTP status for every request while set (the node down behind a proxy). */
  httpStatus: undefined as number | undefined,
};
const calls: Call[] = [];
const sent: VersionedTransaction[] = [];
// What the cluster took, as a real one knows it: a signature it never took has no status (null),
// so a move refused in preflight can never read as landed (the retry job asks about open moves).
const known = new Set<string>();
const blockhash = bs58.encode(Buffer.alloc(32, 7));

function answer(method: string, params: unknown[]): { result?: unknown; error?: unknown } {
  const context = { slot: cluster.slot };
  switch (method) {
    case 'getLatestBlockhash':
      return { result: { context, value: { blockhash, lastValidBlockHeight: cluster.slot + 150 } } };
    case 'requestAirdrop': {
      cluster.balance += Number(params[1]);
      cluster.slot += 1;
      const signature = bs58.encode(Buffer.alloc(64, cluster.slot % 256));
      known.add(signature);
      return { result: signature };
    }
    case 'sendTransaction': {
      if (cluster.refuseNext) {
        const error = cluster.refuseNext;
        cluster.refuseNext = undefined;
        return { error };
      }
      const tx = VersionedTransaction.deserialize(Buffer.from(params[0] as string, 'base64'));
      sent.push(tx);
      cluster.slot += 1;
      const signature = bs58.encode(tx.signatures[0]!);
      known.add(signature);
      return { result: signature };
    }
    case 'getSignatureStatuses':
      return {
        result: {
          context,
          value: (params[0] as string[]).map((signature) =>
            known.has(signature) ? { slot: cluster.slot, confirmations: 0, err: null, status: { Ok: null }, confirmationStatus: 'confirmed' } : null,
          ),
        },
      };
    case 'getBalance':
      return { result: { context, value: cluster.balance } };
    case 'getIndexerSlot':
      return { result: cluster.slot - cluster.indexerLag };
    case 'getCompressedBalanceByOwner':
      return { result: { context: { slot: cluster.slot - cluster.indexerLag }, value: cluster.compressed } };
    default:
      return { error: { code: -32601, message: `Method not found: ${method}` } };
  }
}

let server: Server;
let url: string;
let rt: TestRuntime;
let alice: HttpClient;
let wallet: { id: string; address: string };

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (cluster.httpStatus) {
        res.writeHead(cluster.httpStatus, { 'content-type': 'text/plain' }).end('upstream unavailable');
        return;
      }
      const msg = JSON.parse(body) as { id: unknown; method: string; params?: unknown[] };
      calls.push({ method: msg.method, params: msg.params });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...answer(msg.method, msg.params ?? []) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // No scheduled job in the background: each test asserts the exact RPC calls its request makes, and
  // a retry or relayer pass that fires mid-file (after a minute under CI load) adds calls of its own.
  rt = await startTestRuntime({ CHAIN_A_NETWORK: 'devnet', CHAIN_A_RPC_URL: url, RATE_LIMIT_MULTIPLIER: '20' }, undefined, {
    withoutJobs: ['transfer-retry', 'bridge-relayer', 'rewards-retry', 'close-reward-epochs'],
  });
  alice = rt.client();
  await signedInUser(alice);
  wallet = (await alice.post('/api/wallets', { chain: 'a', name: 'devnet' })).json.wallet;
});
afterAll(async () => {
  await rt?.stop();
  await new Promise((r) => server?.close(r));
});
beforeEach(() => {
  advanceClock(61_000);
  calls.length = 0;
});

const methods = () => calls.map((c) => c.method);

describe('chain A over RPC (devnet, recorded answers)', () => {
  it('airdrop: requestAirdrop, then polls getSignatureStatuses until confirmed', async () => {
    const r = await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 2 });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(methods()).toEqual(['requestAirdrop', 'getSignatureStatuses']);
    expect(calls[0]!.params).toEqual([wallet.address, 2_000_000_000]);
    expect(r.json.explorerUrl).toBe(`https://explorer.solana.com/tx/${r.json.txHash}?cluster=devnet`);
  });

  it("INDEXER_SYNC (503, Retry-After) while the indexer is behind the wallet's last transaction", async () => {
    cluster.indexerLag = 3;
    const behind = await alice.get(`/api/compression/compressed-balance/${wallet.id}`);
    expect(behind.status).toBe(503);
    expect(behind.json).toEqual({ error: 'INDEXER_SYNC', message: expect.any(String) });
    expect(behind.headers.get('retry-after')).toBe('2');
    expect(methods()).toEqual(['getIndexerSlot']);

    cluster.indexerLag = 0;
    const caughtUp = await alice.get(`/api/compression/compressed-balance/${wallet.id}`);
    expect(caughtUp.json).toEqual({ success: true, balance: '0', formatted: '0', decimals: 9 });
    expect(calls.at(-1)).toEqual({ method: 'getCompressedBalanceByOwner', params: { owner: wallet.address } });
  });

  it('compress-native sends one transaction signed by the wallet: compute budget + Light system program compress', async () => {
    const r = await alice.post('/api/compression/compress-native', { walletId: wallet.id, amount: 1.5 });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    // then the fee it paid, for its reward points (lib/rewards/accrue.ts)
    expect(methods()).toEqual(['getIndexerSlot', 'getBalance', 'getLatestBlockhash', 'sendTransaction', 'getSignatureStatuses', 'getTransaction']);
    const tx = sent.at(-1)!;
    expect(bs58.encode(tx.signatures[0]!)).toBe(r.json.txHash);
    const keys = tx.message.staticAccountKeys;
    expect(keys[0]!.toBase58()).toBe(wallet.address); // the fee payer and signer
    expect(tx.message.recentBlockhash).toBe(blockhash);
    const programs = tx.message.compiledInstructions.map((i) => keys[i.programIdIndex]!.toBase58());
    expect(programs).toEqual([ComputeBudgetProgram.programId.toBase58(), LightSystemProgram.programId.toBase58()]);
    // the wallet's real Ed25519 signature over the message
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), new PublicKey(wallet.address).toBuffer()]);
    expect(verify(null, tx.message.serialize(), createPublicKey({ key: spki, format: 'der', type: 'spki' }), tx.signatures[0]!)).toBe(true);
  });

  it('a transaction the cluster refuses in preflight: INSUFFICIENT_BALANCE for missing funds, TRANSACTION_FAILED otherwise', async () => {
    cluster.refuseNext = {
      code: -32002,
      message: 'Transaction simulation failed: Attempt to debit an account but found no record of a prior credit.',
      data: { err: 'AccountNotFound', logs: [] },
    };
    const poor = await alice.post('/api/compression/compress-native', { walletId: wallet.id, amount: 0.1 });
    expect(poor.status).toBe(422);
    expect(poor.json.error).toBe('INSUFFICIENT_BALANCE');
    cluster.refuseNext = {
      code: -32002,
      message: 'Transaction simulation failed: Error processing Instruction 1: custom program error: 0x37e3',
      data: {
        err: { InstructionError: [1, { Custom: 14307 }] },
        logs: ['Program SySTEM1eSU2p4BGQfQpimFEWWSC1XDFeun3Nqzz3rT7 failed: custom program error: 0x37e3'],
      },
    };
    const refused = await alice.post('/api/compression/compress-native', { walletId: wallet.id, amount: 0.1 });
    expect(refused.status).toBe(422);
    expect(refused.json).toEqual({ error: 'TRANSACTION_FAILED', message: expect.stringContaining('14307') });
  });

  it('RPC_ERROR (502) when the node answers errors or cannot be reached; nothing is half-done', async () => {
    cluster.httpStatus = 503;
    const down = await alice.get(`/api/compression/compressed-balance/${wallet.id}`);
    expect(down.status).toBe(502);
    expect(down.json).toEqual({ error: 'RPC_ERROR', message: expect.any(String) });
    const refused = await alice.post('/api/compression/compress-native', { walletId: wallet.id, amount: 0.1 });
    expect(refused.json, JSON.stringify(refused.json)).toMatchObject({ error: 'RPC_ERROR' });
    expect((await alice.get(`/api/wallets/${wallet.id}/balance`)).json.error).toBe('RPC_ERROR');
    cluster.httpStatus = undefined;
    // and the lock was released: the wallet works again at once
    expect((await alice.get(`/api/wallets/${wallet.id}/balance`)).status).toBe(200);
    expect((await alice.post('/api/compression/compress-native', { walletId: wallet.id, amount: 0.1 })).status).toBe(200);
  });
});
