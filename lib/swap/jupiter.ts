import { ComputeBudgetProgram, PublicKey, SystemProgram, VersionedTransaction, type Keypair } from '@solana/web3.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import * as z from 'zod';

/**
 * The real-network adapter: Jupiter's Swap API (v1, `https://lite-api.jup.ag/swap/v1`; the same
 * shapes as the older `quote-api.jup.ag/v6`).
 *
 *   GET  /quote?inputMint&outputMint&amount&slippageBps&swapMode=ExactIn   → a route and its amounts
 *   POST /swap {quoteResponse, userPublicKey, wrapAndUnwrapSol, dynamicComputeUnitLimit}
 *        → {swapTransaction: base64 of an unsigned v0 transaction, lastValidBlockHeight, …}
 *
 * Jupiter's program enforces `otherAmountThreshold` (the quote's minimum output) on chain. We sign
 * with a custodial key, so before signing, the transaction Jupiter returned is checked: the user
 * is the fee payer and the only signer, and every instruction runs one of the programs a Jupiter
 * swap uses (compute budget, system, SPL token, token-2022, associated token, Jupiter) — anything
 * else is refused, whatever the aggregator sends.
 */
export const JUPITER_PROGRAM_ID = new PublicKey('JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4');
const ALLOWED_PROGRAMS = [
  ComputeBudgetProgram.programId,
  SystemProgram.programId,
  TOKEN_PROGRAM_ID,
  TOKEN_2022_PROGRAM_ID,
  ASSOCIATED_TOKEN_PROGRAM_ID,
  JUPITER_PROGRAM_ID,
];

const units = z.string().regex(/^\d+$/);
export const jupiterQuoteSchema = z
  .object({
    inputMint: z.string(),
    inAmount: units,
    outputMint: z.string(),
    outAmount: units,
    otherAmountThreshold: units,
    swapMode: z.enum(['ExactIn', 'ExactOut']),
    slippageBps: z.number().int(),
    priceImpactPct: z.union([z.string(), z.number()]),
    routePlan: z.array(
      z.looseObject({
        swapInfo: z.looseObject({
          ammKey: z.string(),
          label: z.string().optional(),
          inputMint: z.string(),
          outputMint: z.string(),
          inAmount: units,
          outAmount: units,
          feeAmount: units.optional(),
          feeMint: z.string().optional(),
        }),
        percent: z.number(),
      }),
    ),
    contextSlot: z.number().optional(),
  })
  .loose();
export type JupiterQuote = z.infer<typeof jupiterQuoteSchema>;
const swapResponseSchema = z.looseObject({ swapTransaction: z.string().min(1), lastValidBlockHeight: z.number() });

/** Jupiter answered with an error (no route, bad mint…): its message. */
export class AggregatorRefused extends Error {
  constructor(
    message: string,
    readonly noRoute: boolean,
  ) {
    super(message);
    this.name = 'AggregatorRefused';
  }
}

/** Jupiter could not be reached or answered something that is not its API. */
export class AggregatorUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AggregatorUnavailable';
  }
}

/** A transaction from the aggregator that we will not sign. */
export class UnsafeTransaction extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeTransaction';
  }
}

export interface QuoteRequest {
  inputMint: PublicKey;
  outputMint: PublicKey;
  amount: bigint;
  slippageBps: number;
}

export class JupiterClient {
  constructor(
    private readonly baseUrl: string,
    private readonly fetchFn: typeof fetch = fetch,
  ) {}

  private async call(path: string, init?: RequestInit): Promise<unknown> {
    let res: Response;
    try {
      res = await this.fetchFn(`${this.baseUrl.replace(/\/$/, '')}${path}`, { ...init, signal: AbortSignal.timeout(10_000) });
    } catch (e) {
      throw new AggregatorUnavailable(`jupiter: ${e instanceof Error ? e.message : String(e)}`);
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new AggregatorUnavailable(`jupiter: HTTP ${res.status}, not JSON`);
    }
    if (res.status >= 500) throw new AggregatorUnavailable(`jupiter: HTTP ${res.status}`);
    if (!res.ok) {
      const message = typeof body === 'object' && body && 'error' in body ? String(body.error) : `HTTP ${res.status}`;
      throw new AggregatorRefused(message, /route/i.test(message));
    }
    return body;
  }

  async quote(q: QuoteRequest): Promise<JupiterQuote> {
    const params = new URLSearchParams({
      inputMint: q.inputMint.toBase58(),
      outputMint: q.outputMint.toBase58(),
      amount: q.amount.toString(),
      slippageBps: String(q.slippageBps),
      swapMode: 'ExactIn',
    });
    const parsed = jupiterQuoteSchema.safeParse(await this.call(`/quote?${params}`));
    if (!parsed.success) throw new AggregatorUnavailable('jupiter: the quote does not have the documented shape');
    const quote = parsed.data;
    if (quote.inputMint !== q.inputMint.toBase58() || quote.outputMint !== q.outputMint.toBase58() || quote.inAmount !== q.amount.toString()) {
      throw new AggregatorUnavailable('jupiter: the quote is for another swap than the one asked');
    }
    return quote;
  }

  /** The unsigned transaction for `quote`, checked (see `checkSwapTransaction`). */
  async swapTransaction(quote: JupiterQuote, user: PublicKey): Promise<VersionedTransaction> {
    return (await this.swap(quote, user)).tx;
  }

  /** The checked transaction for `quote` and the block height after which its blockhash has expired (Jupiter's answer). */
  async swap(quote: JupiterQuote, user: PublicKey): Promise<{ tx: VersionedTransaction; lastValidBlockHeight: number }> {
    const body = await this.call('/swap', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ quoteResponse: quote, userPublicKey: user.toBase58(), wrapAndUnwrapSol: true, dynamicComputeUnitLimit: true }),
    });
    const parsed = swapResponseSchema.safeParse(body);
    if (!parsed.success) throw new AggregatorUnavailable('jupiter: the swap answer does not have the documented shape');
    let tx: VersionedTransaction;
    try {
      tx = VersionedTransaction.deserialize(Buffer.from(parsed.data.swapTransaction, 'base64'));
    } catch {
      throw new AggregatorUnavailable('jupiter: swapTransaction is not a transaction');
    }
    checkSwapTransaction(tx, user);
    return { tx, lastValidBlockHeight: parsed.data.lastValidBlockHeight };
  }
}

/** Refuses (UnsafeTransaction) anything but a swap the user alone signs and pays for. */
export function checkSwapTransaction(tx: VersionedTransaction, user: PublicKey): void {
  const m = tx.message;
  if (!m.staticAccountKeys[0]?.equals(user)) throw new UnsafeTransaction('the fee payer is not the user');
  if (m.header.numRequiredSignatures !== 1) throw new UnsafeTransaction('the transaction needs signers other than the user');
  const programs = m.compiledInstructions.map((i) => m.staticAccountKeys[i.programIdIndex]);
  for (const p of programs) {
    if (!p || !ALLOWED_PROGRAMS.some((a) => a.equals(p)))
      throw new UnsafeTransaction(`the transaction runs a program a Jupiter swap does not: ${p?.toBase58() ?? '?'}`);
  }
  if (!programs.some((p) => p?.equals(JUPITER_PROGRAM_ID))) throw new UnsafeTransaction('the transaction does not call Jupiter');
}

/** The user's signature on the checked transaction (the only one it needs). */
export function signSwap(tx: VersionedTransaction, user: Keypair): VersionedTransaction {
  checkSwapTransaction(tx, user.publicKey);
  tx.sign([user]);
  return tx;
}

/** The quote in the API's terms: amounts, minimum, price impact (bps, rounded up), the route. */
export function quoteTerms(q: JupiterQuote) {
  const pct = Number(q.priceImpactPct);
  return {
    amountIn: BigInt(q.inAmount),
    amountOut: BigInt(q.outAmount),
    minAmountOut: BigInt(q.otherAmountThreshold),
    priceImpactBps: Number.isFinite(pct) ? Math.ceil(Math.abs(pct) * 10_000) : 0,
    route: q.routePlan.map((r) => ({
      amm: r.swapInfo.ammKey,
      label: r.swapInfo.label ?? '',
      inputMint: r.swapInfo.inputMint,
      outputMint: r.swapInfo.outputMint,
      percent: r.percent,
      fee: r.swapInfo.feeAmount ?? '0',
      feeMint: r.swapInfo.feeMint ?? '',
    })),
  };
}
