/**
 * Swaps through the local runtime (`npm run bench -- swap`): quotes per second (HTTP → emulator
 * → session, rate limit, wallet read, two reserve reads from the local chain A, the balance
 * check, the quote's DynamoDB put) and executions per second (the quote's conditional claim, the
 * wallet's and the pool's leases, the key unsealed, the reserves read again, one two-signer
 * transaction executed by LiteSVM's SPL token program, the ledger snapshot written, the order
 * and the reward accrual written), one client at a time and with WORKERS wallets at once on the
 * one pool; then swaps whose output is a shielded deposit into pool sol-0.1 (the same, plus the
 * deposit's journal, the Poseidon tree append and the deposit's accrual). Prints numbers, asserts
 * nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 4);
const dir = mkdtempSync(join(tmpdir(), 'shroud-bench-swap-'));
process.env.POWERTOOLS_LOG_LEVEL = 'CRITICAL';

const { startRuntime } = await import('#lib/local/runtime.ts');
const rt = await startRuntime({
  port: 0,
  dataDir: join(dir, 'data'),
  env: { RATE_LIMIT_MULTIPLIER: '1000' },
  routes: (await import('#functions/routes.ts')).routes,
  jobs: (await import('#functions/jobs.ts')).jobs,
});
const { createSession } = await import('#lib/data/sessions.ts');

const { id: cookie } = await createSession('bench-swap-user', 'password');
const headers = { cookie: `shroud_session=${cookie}`, 'content-type': 'application/json' };
async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(new URL(path, rt.url), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await res.json()) as Record<string, any>;
  if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}
const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, p95: s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]! };
};

try {
  const wallets: string[] = [];
  for (let i = 0; i < WORKERS; i++) {
    const w = (await api('POST', '/api/wallets', { chain: 'a', name: `bench-${i}` })).wallet.id as string;
    await api('POST', `/api/wallets/${w}/airdrop`, { amount: 100 });
    wallets.push(w);
  }
  const quoteBody = (walletId: string) => ({ walletId, from: 'SOL', to: 'sUSD', amount: 0.01, slippageBps: 300 });
  // warm-up: the pool seeded, every handler module loaded once (as a warm Lambda)
  await api('GET', '/api/swap/pairs');
  await api('POST', '/api/swap/execute', { quoteId: (await api('POST', '/api/swap/quote', quoteBody(wallets[0]!))).quoteId });

  const quoteMs: number[] = [];
  let t0 = performance.now();
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    await api('POST', '/api/swap/quote', quoteBody(wallets[0]!));
    quoteMs.push(performance.now() - t);
  }
  const quotesPerSecond = ROUNDS / ((performance.now() - t0) / 1000);

  const execMs: number[] = [];
  t0 = performance.now();
  for (let i = 0; i < ROUNDS; i++) {
    const q = await api('POST', '/api/swap/quote', quoteBody(wallets[0]!));
    const t = performance.now();
    await api('POST', '/api/swap/execute', { quoteId: q.quoteId });
    execMs.push(performance.now() - t);
  }
  const swapsPerSecond = ROUNDS / ((performance.now() - t0) / 1000);

  // WORKERS wallets at once on the one pool: the pool's lease serialises pricing-and-signing
  let done = 0;
  t0 = performance.now();
  await Promise.all(
    wallets.map(async (w) => {
      for (let i = 0; i < Math.ceil(ROUNDS / WORKERS); i++) {
        const q = await api('POST', '/api/swap/quote', quoteBody(w));
        await api('POST', '/api/swap/execute', { quoteId: q.quoteId });
        done++;
      }
    }),
  );
  const parallelPerSecond = done / ((performance.now() - t0) / 1000);

  // swaps into a shielded deposit: sUSD → exactly 0.1 SOL into pool sol-0.1 (the surplus to the wallet)
  const { createNote, noteCommitment } = await import('#lib/client/transfer-note.ts');
  await api('GET', '/api/transfer/pools');
  await api('POST', '/api/swap/execute', {
    quoteId: (await api('POST', '/api/swap/quote', { walletId: wallets[0]!, from: 'SOL', to: 'sUSD', amount: 4, slippageBps: 300 })).quoteId,
  });
  const shieldedMs: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const output = { type: 'shielded', pool: 'sol-0.1', commitment: await noteCommitment(createNote('sol-0.1')) };
    const q = await api('POST', '/api/swap/quote', { walletId: wallets[0]!, from: 'sUSD', to: 'SOL', amount: 16, slippageBps: 300, output });
    const t = performance.now();
    await api('POST', '/api/swap/execute', { quoteId: q.quoteId });
    shieldedMs.push(performance.now() - t);
  }

  console.log(`swap through the local runtime, ${ROUNDS} rounds (local chain A, one SOL/sUSD pool)`);
  console.table([
    {
      operation: 'POST /api/swap/quote',
      'median ms': stats(quoteMs).median.toFixed(1),
      'p95 ms': stats(quoteMs).p95.toFixed(1),
      'per second (one client)': quotesPerSecond.toFixed(1),
    },
    {
      operation: 'POST /api/swap/execute',
      'median ms': stats(execMs).median.toFixed(1),
      'p95 ms': stats(execMs).p95.toFixed(1),
      'per second (one client)': (1000 / stats(execMs).median).toFixed(1),
    },
    {
      operation: 'POST /api/swap/execute (into a shielded deposit)',
      'median ms': stats(shieldedMs).median.toFixed(1),
      'p95 ms': stats(shieldedMs).p95.toFixed(1),
      'per second (one client)': (1000 / stats(shieldedMs).median).toFixed(1),
    },
  ]);
  console.log(
    `quote + execute, one client: ${swapsPerSecond.toFixed(1)} swaps/s; ${WORKERS} wallets at once on the pool: ${parallelPerSecond.toFixed(1)} swaps/s (${done} swaps)`,
  );
} finally {
  await rt.stop();
  rmSync(dir, { recursive: true, force: true });
}
