import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ed25519 } from '@noble/curves/ed25519.js';
import { Keypair, MessageV0, PublicKey, SystemProgram, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AggregatorRefused,
  AggregatorUnavailable,
  checkSwapTransaction,
  JUPITER_PROGRAM_ID,
  JupiterClient,
  quoteTerms,
  signSwap,
  UnsafeTransaction,
} from '#lib/swap/jupiter.ts';

/**
 * The Jupiter adapter offline: a loopback server answers with responses recorded from Jupiter's
 * API (test/unit/swap/recorded/), and the test follows them down to the transaction the adapter
 * signs.
 */
const recorded = (f: string) => JSON.parse(readFileSync(new URL(`./recorded/${f}`, import.meta.url), 'utf8'));
const QUOTE = recorded('jupiter-quote.json');
const SWAP = recorded('jupiter-swap.json');
const RECORDED_USER = new PublicKey('J5hkNQTVi18NCEMSGBsMY9mdtHfb5JFpUc4bHE7D89ft');
const SOL = new PublicKey('So11111111111111111111111111111111111111112');
const USDC = new PublicKey('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');

let server: Server;
let base: string;
const seen: { method: string; url: string; body: unknown }[] = [];
let answer: (req: IncomingMessage) => { status: number; body: unknown };

const read = (req: IncomingMessage) =>
  new Promise<string>((ok) => {
    let s = '';
    req.on('data', (c) => (s += c));
    req.on('end', () => ok(s));
  });

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const text = await read(req);
    seen.push({ method: req.method!, url: req.url!, body: text ? JSON.parse(text) : undefined });
    const a = answer(req);
    res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/swap/v1`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));
beforeEach(() => {
  seen.length = 0;
  answer = (req) => (req.url!.startsWith('/swap/v1/quote') ? { status: 200, body: QUOTE } : { status: 200, body: SWAP });
});

/** The recorded transaction with its fee payer replaced by `user` (everything else byte for byte). */
function rekeyed(user: PublicKey): string {
  const tx = VersionedTransaction.deserialize(Buffer.from(SWAP.swapTransaction, 'base64'));
  const m = tx.message as MessageV0;
  const keys = [user, ...m.staticAccountKeys.slice(1)];
  const copy = new MessageV0({
    header: m.header,
    staticAccountKeys: keys,
    recentBlockhash: m.recentBlockhash,
    compiledInstructions: m.compiledInstructions,
    addressTableLookups: m.addressTableLookups,
  });
  return Buffer.from(new VersionedTransaction(copy).serialize()).toString('base64');
}

describe('the Jupiter adapter against recorded responses', () => {
  it('asks for the quote with the documented parameters and reads its terms', async () => {
    const q = await new JupiterClient(base).quote({ inputMint: SOL, outputMint: USDC, amount: 100n, slippageBps: 100 });
    const url = new URL(seen[0]!.url, 'http://x');
    expect(url.pathname).toBe('/swap/v1/quote');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      inputMint: SOL.toBase58(),
      outputMint: USDC.toBase58(),
      amount: '100',
      slippageBps: '100',
      swapMode: 'ExactIn',
    });
    expect(quoteTerms(q)).toEqual({
      amountIn: 100n,
      amountOut: 66n,
      minAmountOut: 66n,
      priceImpactBps: 0,
      route: [
        {
          amm: 'BQR6JJFyMWxnUERqbCRCCy1ietW2yq8RTKDx9odzruha',
          label: 'Stabble Weighted Swap',
          inputMint: SOL.toBase58(),
          outputMint: USDC.toBase58(),
          percent: 100,
          fee: '0',
          feeMint: USDC.toBase58(),
        },
      ],
    });
  });

  it('posts the quote back verbatim and gets the recorded transaction: the user pays and alone signs, Jupiter runs', async () => {
    const client = new JupiterClient(base);
    const q = await client.quote({ inputMint: SOL, outputMint: USDC, amount: 100n, slippageBps: 100 });
    const tx = await client.swapTransaction(q, RECORDED_USER);
    expect(seen[1]).toEqual({
      method: 'POST',
      url: '/swap/v1/swap',
      body: { quoteResponse: QUOTE, userPublicKey: RECORDED_USER.toBase58(), wrapAndUnwrapSol: true, dynamicComputeUnitLimit: true },
    });
    expect(tx.version).toBe(0);
    expect(tx.message.recentBlockhash).toBe('BHDf66eUHRiqQHwQCKrAMyyrf3SzypnFNDVyHpsrNUPY');
    expect(tx.message.staticAccountKeys[0]!.equals(RECORDED_USER)).toBe(true);
    expect(tx.message.compiledInstructions.some((i) => tx.message.staticAccountKeys[i.programIdIndex]!.equals(JUPITER_PROGRAM_ID))).toBe(true);
    // another user's key cannot take that transaction
    await expect(client.swapTransaction(q, Keypair.generate().publicKey)).rejects.toBeInstanceOf(UnsafeTransaction);
  });

  it("signs the transaction it would send: the user's Ed25519 signature over the recorded message", async () => {
    const user = Keypair.generate();
    answer = (req) =>
      req.url!.startsWith('/swap/v1/quote') ? { status: 200, body: QUOTE } : { status: 200, body: { ...SWAP, swapTransaction: rekeyed(user.publicKey) } };
    const client = new JupiterClient(base);
    const tx = signSwap(
      await client.swapTransaction(await client.quote({ inputMint: SOL, outputMint: USDC, amount: 100n, slippageBps: 100 }), user.publicKey),
      user,
    );
    const message = tx.message.serialize();
    expect(ed25519.verify(tx.signatures[0]!, message, user.publicKey.toBytes())).toBe(true);
    // the message is Jupiter's, only the payer differs: version, header and key count (5 bytes), the
    // payer (32), then the rest byte for byte
    const original = Buffer.from(VersionedTransaction.deserialize(Buffer.from(SWAP.swapTransaction, 'base64')).message.serialize());
    expect(Buffer.from(message).subarray(0, 5).equals(original.subarray(0, 5))).toBe(true);
    expect(Buffer.from(message).subarray(5, 37).equals(Buffer.from(user.publicKey.toBytes()))).toBe(true);
    expect(Buffer.from(message).subarray(37).equals(original.subarray(37))).toBe(true);
    // wire format: one signature then the message, as sendTransaction takes it
    const wire = tx.serialize();
    expect(wire[0]).toBe(1);
    expect(Buffer.from(wire.subarray(65)).equals(Buffer.from(message))).toBe(true);
  });

  it('refuses to sign anything but a Jupiter swap the user alone signs', async () => {
    const user = Keypair.generate();
    const stranger = Keypair.generate();
    const { blockhash } = { blockhash: '11111111111111111111111111111111' };
    const drain = new VersionedTransaction(
      new TransactionMessage({
        payerKey: user.publicKey,
        recentBlockhash: blockhash,
        instructions: [SystemProgram.transfer({ fromPubkey: user.publicKey, toPubkey: stranger.publicKey, lamports: 1 })],
      }).compileToV0Message(),
    );
    expect(() => checkSwapTransaction(drain, user.publicKey)).toThrow(/does not call Jupiter/);
    const memo = new VersionedTransaction(
      new TransactionMessage({
        payerKey: user.publicKey,
        recentBlockhash: blockhash,
        instructions: [
          { programId: new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'), keys: [], data: Buffer.from('x') },
          { programId: JUPITER_PROGRAM_ID, keys: [], data: Buffer.alloc(0) },
        ],
      }).compileToV0Message(),
    );
    expect(() => checkSwapTransaction(memo, user.publicKey)).toThrow(/a program a Jupiter swap does not/);
    const cosigned = new VersionedTransaction(
      new TransactionMessage({
        payerKey: user.publicKey,
        recentBlockhash: blockhash,
        instructions: [{ programId: JUPITER_PROGRAM_ID, keys: [{ pubkey: stranger.publicKey, isSigner: true, isWritable: true }], data: Buffer.alloc(0) }],
      }).compileToV0Message(),
    );
    expect(() => signSwap(cosigned, user)).toThrow(/signers other than the user/);
  });

  it("turns Jupiter's failures into clear errors", async () => {
    const client = new JupiterClient(base);
    const ask = () => client.quote({ inputMint: SOL, outputMint: USDC, amount: 100n, slippageBps: 100 });
    answer = () => ({ status: 400, body: { error: 'Could not find any routes for the given input and output mints', errorCode: 'COULD_NOT_FIND_ANY_ROUTE' } });
    await expect(ask()).rejects.toMatchObject({ name: 'AggregatorRefused', noRoute: true });
    answer = () => ({ status: 502, body: { error: 'bad gateway' } });
    await expect(ask()).rejects.toBeInstanceOf(AggregatorUnavailable);
    answer = () => ({ status: 200, body: { ...QUOTE, inAmount: '1000' } });
    await expect(ask()).rejects.toThrow(/another swap/);
    answer = () => ({ status: 200, body: { hello: 'world' } });
    await expect(ask()).rejects.toThrow(/documented shape/);
    await expect(
      new JupiterClient('http://127.0.0.1:1/swap/v1').quote({ inputMint: SOL, outputMint: USDC, amount: 100n, slippageBps: 100 }),
    ).rejects.toBeInstanceOf(AggregatorUnavailable);
    expect(new AggregatorRefused('x', false)).toBeInstanceOf(Error);
  });
});
