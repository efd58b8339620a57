import { Keypair, PublicKey } from '@solana/web3.js';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';

/**
 * Issue 39's signing-path rows, for hotpath.ts and compression.ts: `compress-native` and a
 * compressed `transfer` through the API (HTTP → the API Gateway emulator → the handler stack →
 * session, rate limit, wallet read, key unsealing, the wallet's lease, the value-move journal,
 * LiteSVM executing Light's programs, the lease's release, the reward accrual) against the same
 * transactions sent straight to a LiteSVM chain in this process, and against a plain authenticated
 * `GET /api/wallets/:id`. The three API requests take turns in one loop, so that whatever else the
 * machine runs weighs on all three alike; the load average is printed before and after.
 *
 * Where the time goes is printed beside each row: the DynamoDB calls the request made (counted on
 * the client's middleware stack: the runtime runs in this process) and the wall time spent in them,
 * and the time in the chain's `sendAndConfirm`. Rule (issue 39): ≤ 2 × (plain GET + in process)
 * and ≤ 2.5 × the plain GET.
 */
export interface SigningPathRow {
  name: string;
  api: Stats;
  direct: Stats;
  /** Median DynamoDB calls per request, and the median wall ms spent in them. */
  dynamoCalls: number;
  dynamoMs: number;
  chainMs: number;
}

interface Stats {
  median: number;
  p95: number;
}

export const stats = (ms: number[]): Stats => {
  const s = [...ms].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, p95: s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]! };
};

const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

/** Per request: what it made of DynamoDB and of the chain (one request at a time, so module-wide tallies are its own). */
interface Tally {
  calls: number;
  dynamoMs: number;
  chainMs: number;
  /** Each DynamoDB call: its command, the key prefixes it names, its wall ms. */
  each: string[];
}

async function instrument(): Promise<{ tally: Tally; stop: () => void }> {
  const tally: Tally = { calls: 0, dynamoMs: 0, chainMs: 0, each: [] };
  const { dynamo } = await import('#lib/data/client.ts');
  dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      const t = performance.now();
      try {
        return await next(args);
      } finally {
        const ms = performance.now() - t;
        tally.calls++;
        tally.dynamoMs += ms;
        const keys = [...new Set(JSON.stringify(args.input).match(/(?<="(?:pk|:pk)":(?:\{"S":)?")[A-Z]+/g) ?? [])];
        tally.each.push(`${context.commandName?.replace(/Command$/, '')} ${keys.join('+')} ${ms.toFixed(1)}`);
      }
    },
    { step: 'initialize', name: 'benchTally' },
  );
  const chain = await (await import('#lib/chains/chain-a/index.ts')).chainA();
  const send = chain.sendAndConfirm.bind(chain);
  chain.sendAndConfirm = async (tx) => {
    const t = performance.now();
    try {
      return await send(tx);
    } finally {
      tally.chainMs += performance.now() - t;
    }
  };
  return {
    tally,
    stop: () => {
      dynamo.middlewareStack.remove('benchTally');
      chain.sendAndConfirm = send;
    },
  };
}

export async function signingPath(url: string, rounds: number): Promise<{ rows: SigningPathRow[]; plain: Stats; balance: { api: Stats; direct: Stats } }> {
  const { createSession } = await import('#lib/data/sessions.ts');
  const { LocalChainA } = await import('#lib/local/chain-a/chain.ts');
  const ops = await import('#lib/chains/chain-a/operations.ts');

  const { id: cookie } = await createSession(`bench-${Date.now()}`, 'password');
  const headers = { cookie: `shroud_session=${cookie}`, 'content-type': 'application/json' };
  async function api(method: string, path: string, body?: unknown) {
    const res = await fetch(new URL(path, url), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = (await res.json()) as Record<string, string>;
    if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }
  async function time(fn: () => Promise<unknown>): Promise<number> {
    const t = performance.now();
    await fn();
    return performance.now() - t;
  }

  // ---- through the API ----------------------------------------------------------------------
  const wallet = (await api('POST', '/api/wallets', { chain: 'a', name: 'bench' })) as unknown as { wallet: { id: string } };
  const walletId = wallet.wallet.id;
  const recipient = Keypair.generate().publicKey.toBase58();
  await api('POST', `/api/wallets/${walletId}/airdrop`, { amount: 100 });
  const { mintAddress } = await api('POST', '/api/compression/create-token', { walletId, decimals: 6 });
  await api('POST', '/api/compression/mint-to', { walletId, mint: mintAddress, amount: 1_000_000 });
  await api('POST', '/api/compression/compress-token', { walletId, mint: mintAddress, amount: 100_000 });
  const calls = {
    plain: () => api('GET', `/api/wallets/${walletId}`),
    compress: () => api('POST', '/api/compression/compress-native', { walletId, amount: 0.001 }),
    transfer: () => api('POST', '/api/compression/transfer', { walletId, mint: mintAddress, to: recipient, amount: 1 }),
    balance: () => api('GET', `/api/compression/compressed-balance/${walletId}`),
  };
  // warm-up: every handler module loaded once, as a warm Lambda
  for (let i = 0; i < 3; i++) for (const c of Object.values(calls)) await c();

  console.log(`signing path: ${rounds} rounds, the API requests taking turns; load average before ${load()} (on ${navigator.hardwareConcurrency} cores)`);
  const { tally, stop } = await instrument();
  const viaApi = { plain: [] as number[], compress: [] as number[], transfer: [] as number[], balance: [] as number[] };
  const made = { compress: [] as Tally[], transfer: [] as Tally[] };
  try {
    for (let i = 0; i < rounds; i++) {
      for (const op of ['plain', 'compress', 'transfer', 'balance'] as const) {
        Object.assign(tally, { calls: 0, dynamoMs: 0, chainMs: 0, each: [] });
        viaApi[op].push(await time(calls[op]));
        if (op === 'compress' || op === 'transfer') made[op].push({ ...tally });
        if (process.env.BENCH_CALLS && (op === 'compress' || op === 'transfer')) console.log(`    ${op}: ${tally.each.join(' | ')}`);
      }
    }
  } finally {
    stop();
  }

  // ---- the same transactions, in process -----------------------------------------------------
  const chain = await LocalChainA.open(undefined);
  const signer = Keypair.generate();
  const to = new PublicKey(recipient);
  await chain.airdrop(signer.publicKey, 100_000_000_000n);
  const { mint } = await ops.createMint(chain, signer, 6);
  await ops.mintTo(chain, signer, mint, signer.publicKey, 1_000_000_000_000n);
  await ops.compressToken(chain, signer, mint, 100_000_000_000n);
  await ops.compressNative(chain, signer, 1_000_000n);
  await ops.transferCompressed(chain, signer, mint, to, 1_000_000n);
  const direct = { compress: [] as number[], transfer: [] as number[], balance: [] as number[] };
  for (let i = 0; i < rounds; i++) {
    direct.compress.push(await time(() => ops.compressNative(chain, signer, 1_000_000n)));
    direct.transfer.push(await time(() => ops.transferCompressed(chain, signer, mint, to, 1_000_000n)));
    direct.balance.push(await time(() => ops.compressedNativeBalance(chain, signer.publicKey)));
  }
  console.log(`  load average after: ${load()}`);

  const median = (xs: number[]) => stats(xs).median;
  const rows = (['compress', 'transfer'] as const).map((op) => ({
    name: op === 'compress' ? 'compress-native' : 'compressed transfer',
    api: stats(viaApi[op]),
    direct: stats(direct[op]),
    dynamoCalls: median(made[op].map((t) => t.calls)),
    dynamoMs: median(made[op].map((t) => t.dynamoMs)),
    chainMs: median(made[op].map((t) => t.chainMs)),
  }));
  return { rows, plain: stats(viaApi.plain), balance: { api: stats(viaApi.balance), direct: stats(direct.balance) } };
}

/** The rows beside their targets, and where each request's time went. */
export function printSigningRows(rows: SigningPathRow[], plain: Stats): void {
  console.log(`  GET /api/wallets/:id (no chain work): median ${plain.median.toFixed(1)} ms, p95 ${plain.p95.toFixed(1)} ms`);
  for (const r of rows) {
    const bound = Math.min(2 * (plain.median + r.direct.median), 2.5 * plain.median);
    console.log(
      `  ${r.name} through the API vs in process: ${r.api.median.toFixed(1)} ms (p95 ${r.api.p95.toFixed(1)}) vs ${r.direct.median.toFixed(1)} ms = ${(r.api.median / plain.median).toFixed(2)}× the plain GET; target ≤ ${bound.toFixed(1)} ms ${r.api.median <= bound ? '✔' : '✘'}`,
    );
    console.log(
      `    of which (medians): ${r.dynamoCalls} DynamoDB calls, ${r.dynamoMs.toFixed(1)} ms in them; ${r.chainMs.toFixed(1)} ms in the chain's sendAndConfirm; the rest ${(r.api.median - r.dynamoMs - r.chainMs).toFixed(1)} ms`,
    );
  }
}
