/**
 * Compression through the API against the same transactions sent straight to the runtime
 * (`npm run bench -- compression`). API: HTTP → the local API Gateway emulator → handler →
 * session, rate limit, DynamoDB wallet read, KMS-style unsealing of the key, the DynamoDB lease,
 * the SDK building the transaction, LiteSVM executing Light's programs, its log line appended under
 * DATA_DIR, the lease's release with the slot and the reward accrual (one DynamoDB transaction). In process: the same SDK calls (lib/chains/chain-a/operations.ts)
 * on a LiteSVM chain of the same history, with nothing around them. The ratio of the medians is
 * the API's overhead. Prints numbers, asserts nothing.
 */
import { Keypair, PublicKey } from '@solana/web3.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const dir = mkdtempSync(join(tmpdir(), 'shroud-bench-compression-'));
process.env.POWERTOOLS_LOG_LEVEL = 'CRITICAL';

const { startRuntime } = await import('#lib/local/runtime.ts');
const rt = await startRuntime({
  port: 0,
  dataDir: join(dir, 'data'),
  env: { RATE_LIMIT_MULTIPLIER: '100' },
  routes: (await import('#functions/routes.ts')).routes,
  jobs: (await import('#functions/jobs.ts')).jobs,
});
const { createSession } = await import('#lib/data/sessions.ts');
const { LocalChainA } = await import('#lib/local/chain-a/chain.ts');
const ops = await import('#lib/chains/chain-a/operations.ts');

const { id: cookie } = await createSession('bench-user', 'password');
const headers = { cookie: `shroud_session=${cookie}`, 'content-type': 'application/json' };
async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(new URL(path, rt.url), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await res.json()) as Record<string, string>;
  if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, p95: s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]! };
};
async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

try {
  // ---- through the API ----------------------------------------------------------------------
  const wallet = (await api('POST', '/api/wallets', { chain: 'a', name: 'bench' })) as unknown as { wallet: { id: string; address: string } };
  const walletId = wallet.wallet.id;
  const recipient = Keypair.generate().publicKey.toBase58();
  await api('POST', `/api/wallets/${walletId}/airdrop`, { amount: 100 });
  const { mintAddress } = await api('POST', '/api/compression/create-token', { walletId, decimals: 6 });
  await api('POST', '/api/compression/mint-to', { walletId, mint: mintAddress, amount: 1_000_000 });
  await api('POST', '/api/compression/compress-token', { walletId, mint: mintAddress, amount: 100_000 });
  // warm-up: every handler module loaded once, as a warm Lambda
  await api('POST', '/api/compression/compress-native', { walletId, amount: 0.001 });
  await api('POST', '/api/compression/transfer', { walletId, mint: mintAddress, to: recipient, amount: 1 });
  await api('GET', `/api/compression/compressed-balance/${walletId}`);

  const viaApi = { compress: [] as number[], transfer: [] as number[], balance: [] as number[] };
  for (let i = 0; i < ROUNDS; i++) {
    viaApi.compress.push(await time(() => api('POST', '/api/compression/compress-native', { walletId, amount: 0.001 })));
    viaApi.transfer.push(await time(() => api('POST', '/api/compression/transfer', { walletId, mint: mintAddress, to: recipient, amount: 1 })));
    viaApi.balance.push(await time(() => api('GET', `/api/compression/compressed-balance/${walletId}`)));
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
  for (let i = 0; i < ROUNDS; i++) {
    direct.compress.push(await time(() => ops.compressNative(chain, signer, 1_000_000n)));
    direct.transfer.push(await time(() => ops.transferCompressed(chain, signer, mint, to, 1_000_000n)));
    direct.balance.push(await time(() => ops.compressedNativeBalance(chain, signer.publicKey)));
  }

  const rows = (['compress', 'transfer', 'balance'] as const).map((op) => {
    const a = stats(viaApi[op]);
    const d = stats(direct[op]);
    return {
      operation: op === 'compress' ? 'compress-native' : op === 'transfer' ? 'transfer (compressed token)' : 'compressed-balance',
      'API median ms': a.median.toFixed(1),
      'API p95 ms': a.p95.toFixed(1),
      'in-process median ms': d.median.toFixed(1),
      'in-process p95 ms': d.p95.toFixed(1),
      ratio: (a.median / d.median).toFixed(2),
    };
  });
  // The floor of any authenticated API call here: HTTP, the emulator, session, rate limit, one wallet read.
  const floor: number[] = [];
  for (let i = 0; i < ROUNDS; i++) floor.push(await time(() => api('GET', `/api/wallets/${walletId}`)));
  console.log(
    `compression, ${ROUNDS} rounds each (ledger grows by ${ROUNDS * 2} transactions per path during the run); load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} on a shared machine`,
  );
  console.table(rows);
  const plain = stats(floor).median;
  console.log(`GET /api/wallets/:id (no chain work): median ${plain.toFixed(1)} ms, p95 ${stats(floor).p95.toFixed(1)} ms`);
  // Issue 39's rule for a signing route: ≤ 2 × (plain GET + the same work in process) and ≤ 2.5 × the plain GET.
  for (const op of ['compress', 'transfer'] as const) {
    const api = stats(viaApi[op]).median;
    const bound = Math.min(2 * (plain + stats(direct[op]).median), 2.5 * plain);
    const name = op === 'compress' ? 'compress-native' : 'compressed transfer';
    console.log(
      `${name} through the API: ${api.toFixed(1)} ms = ${(api / plain).toFixed(2)}× the plain GET; target ≤ ${bound.toFixed(1)} ms ${api <= bound ? '✔' : '✘'}`,
    );
  }
} finally {
  await rt.stop();
  rmSync(dir, { recursive: true, force: true });
}
