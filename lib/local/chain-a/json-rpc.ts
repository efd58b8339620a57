import { createServer, type IncomingMessage, type Server } from 'node:http';
import { PublicKey, VersionedMessage, VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import * as z from 'zod';
import { ChainRejected } from '#lib/chains/chain-a/port.ts';
import type { LocalChainA } from './chain.ts';

/**
 * The embedded chain A (chain.ts) behind a loopback Solana JSON-RPC endpoint, for the asset mode
 * (cdk/asset-mode.ts): the synthesized functions cannot load LiteSVM, so there they use the rpc
 * adapter (lib/chains/chain-a/rpc.ts) as on a deployed stage, and this answers it. Every
 * transaction is still executed by the programs in LiteSVM (`sendAndConfirm`); a refused one
 * answers as a validator's preflight does (-32002 with its logs), so the adapter classifies it
 * as it would a cluster's.
 *
 * Served: the Solana methods the adapter and the services call for wallets and native-coin
 * compression (getLatestBlockhash, sendTransaction, requestAirdrop, getSignatureStatuses,
 * getBalance, getAccountInfo, getMultipleAccounts, getMinimumBalanceForRentExemption, getSlot,
 * getBlockHeight, getEpochInfo, getTransaction) and Photon's getIndexerSlot, getIndexerHealth and
 * getCompressedBalanceByOwner. Not served (answered -32601, which the adapter reports as
 * RPC_ERROR): Photon's compressed-account listings and validity proofs, so spending compressed
 * accounts (decompress, compressed transfers, tokens) does not run through it.
 */
export interface ChainARpcServer {
  /** `http://127.0.0.1:<port>` (a loopback host, so stateless.js uses the local state trees). */
  url: string;
  stop(): Promise<void>;
}

const MAX_BODY = 2 * 1024 * 1024;
const request = z.object({ jsonrpc: z.literal('2.0'), id: z.union([z.string(), z.number(), z.null()]), method: z.string().max(100), params: z.unknown() });

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const key = (v: unknown) => {
  try {
    return new PublicKey(z.string().parse(v));
  } catch {
    throw new RpcError(-32602, `Invalid param: not a public key: ${String(v).slice(0, 60)}`);
  }
};
const list = (params: unknown) => (Array.isArray(params) ? params : []);

/** An account as `getAccountInfo` answers it with `encoding: base64`. */
async function accountJson(chain: LocalChainA, address: PublicKey) {
  const a = await chain.rpc.getAccountInfo(address);
  if (!a) return null;
  return {
    data: [Buffer.from(a.data).toString('base64'), 'base64'],
    executable: a.executable,
    lamports: a.lamports,
    owner: a.owner.toBase58(),
    rentEpoch: 0,
    space: a.data.length,
  };
}

/** What the front answers from beyond the chain's own reads: airdrops are not in its ledger of transactions. */
interface FrontState {
  airdrops: Map<string, number>;
}

async function answer(chain: LocalChainA, state: FrontState, method: string, params: unknown): Promise<unknown> {
  const p = list(params);
  const slot = await chain.rpc.getSlot();
  const context = { slot, apiVersion: '2.2.0' };
  switch (method) {
    case 'getLatestBlockhash':
      return { context, value: await chain.rpc.getLatestBlockhash() };
    case 'getSlot':
    case 'getBlockHeight':
      return slot;
    case 'getEpochInfo':
      return chain.rpc.getEpochInfo();
    case 'getBalance':
      return { context, value: await chain.rpc.getBalance(key(p[0])) };
    case 'getAccountInfo':
      return { context, value: await accountJson(chain, key(p[0])) };
    case 'getMultipleAccounts':
      return {
        context,
        value: await Promise.all(
          z
            .array(z.string())
            .max(100)
            .parse(p[0])
            .map((a) => accountJson(chain, key(a))),
        ),
      };
    case 'getMinimumBalanceForRentExemption':
      return chain.rpc.getMinimumBalanceForRentExemption(
        z
          .number()
          .int()
          .min(0)
          .max(10 * 1024 * 1024)
          .parse(p[0]),
      );
    case 'requestAirdrop': {
      const lamports = z.number().int().positive().max(1e15).parse(p[1]);
      const drop = await sent(() => chain.airdrop(key(p[0]), BigInt(lamports)));
      state.airdrops.set(drop.signature, drop.slot);
      return drop.signature;
    }
    case 'sendTransaction': {
      const encoding = (p[1] as { encoding?: string } | undefined)?.encoding ?? 'base58';
      const bytes = encoding === 'base64' ? Buffer.from(z.string().parse(p[0]), 'base64') : bs58.decode(z.string().parse(p[0]));
      let tx: VersionedTransaction;
      try {
        tx = VersionedTransaction.deserialize(bytes);
      } catch (e) {
        throw new RpcError(-32602, `invalid transaction: ${(e as Error).message}`);
      }
      return (await sent(() => chain.sendAndConfirm(tx))).signature;
    }
    case 'getSignatureStatuses': {
      const signatures = z.array(z.string()).max(256).parse(p[0]);
      const { value } = await chain.rpc.getSignatureStatuses(signatures);
      return {
        context,
        value: value.map((s, i) => {
          const dropped = state.airdrops.get(signatures[i]!);
          if (s) return { ...s, status: { Ok: null } };
          return dropped === undefined ? null : { slot: dropped, confirmations: null, err: null, status: { Ok: null }, confirmationStatus: 'confirmed' };
        }),
      };
    }
    case 'getTransaction':
      return transactionJson(chain, z.string().parse(p[0]));
    case 'getIndexerSlot':
      return chain.indexerSlot();
    case 'getIndexerHealth':
      return 'ok';
    case 'getCompressedBalanceByOwner': {
      const owner = key((params as { owner?: unknown } | undefined)?.owner);
      return { context: { slot }, value: Number((await chain.rpc.getCompressedBalanceByOwner(owner)).toString()) };
    }
    default:
      throw new RpcError(-32601, `Method not found: ${method} (the asset mode's chain A serves wallets and native compression only)`);
  }
}

/** A refusal as a validator's preflight answers it: the text the rpc adapter's `classify` reads (custom code, missing funds). */
async function sent<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (!(e instanceof ChainRejected)) throw e;
    const parts = [`Transaction simulation failed: ${e.message}`];
    if (e.insufficientFunds) parts.push('Attempt to debit an account but found no record of a prior credit.');
    if (e.customCode !== undefined) parts.push(`custom program error: 0x${e.customCode.toString(16)}`);
    throw new RpcError(-32002, parts.join(' '), {
      err: e.customCode === undefined ? 'Rejected' : { InstructionError: [0, { Custom: e.customCode }] },
      logs: e.logs,
    });
  }
}

/** `getTransaction` in the `json` encoding, version 0, as a validator answers it. */
async function transactionJson(chain: LocalChainA, signature: string) {
  const tx = await chain.rpc.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
  if (!tx?.meta) return null;
  const message = tx.transaction.message as VersionedMessage;
  return {
    slot: tx.slot,
    blockTime: null,
    version: 0,
    transaction: {
      signatures: tx.transaction.signatures,
      message: {
        header: message.header,
        accountKeys: message.staticAccountKeys.map((k) => k.toBase58()),
        recentBlockhash: message.recentBlockhash,
        instructions: message.compiledInstructions.map((i) => ({ programIdIndex: i.programIdIndex, accounts: i.accountKeyIndexes, data: bs58.encode(i.data) })),
        addressTableLookups: [],
      },
    },
    meta: {
      err: null,
      status: { Ok: null },
      fee: tx.meta.fee,
      preBalances: [],
      postBalances: [],
      logMessages: tx.meta.logMessages ?? [],
      innerInstructions: tx.meta.innerInstructions ?? [],
      loadedAddresses: { writable: [], readonly: [] },
    },
  };
}

async function body(req: IncomingMessage): Promise<string> {
  let size = 0;
  const parts: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new RpcError(-32600, 'request too large');
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** Serves `chain` on a free loopback port. */
export async function startChainARpc(chain: LocalChainA): Promise<ChainARpcServer> {
  const state: FrontState = { airdrops: new Map() };
  const server: Server = createServer((req, res) => {
    const reply = (id: unknown, outcome: { result: unknown } | { error: { code: number; message: string; data?: unknown } }) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, ...outcome }));
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    let id: unknown = null;
    body(req)
      .then(async (text) => {
        const msg = request.parse(JSON.parse(text));
        id = msg.id;
        reply(id, { result: await answer(chain, state, msg.method, msg.params) });
      })
      .catch((e: unknown) => {
        if (e instanceof RpcError) return reply(id, { error: { code: e.code, message: e.message, data: e.data } });
        if (e instanceof z.ZodError || e instanceof SyntaxError)
          return reply(id, { error: { code: -32602, message: `Invalid params: ${e.message.slice(0, 200)}` } });
        reply(id, { error: { code: -32603, message: `Internal error: ${(e as Error).message}` } });
      });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ok());
  });
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    stop: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
