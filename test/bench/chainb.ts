/**
 * Chain B transfers through the local runtime (`npm run bench -- chainb`): HTTP → the API Gateway
 * emulator → handler → session, rate limit, wallet read, the key unsealed and unwrapped with the
 * password (scrypt), the wallet lease, the password-lock reservation, the balance checks,
 * starknet.js signing, and the ledger verifying the signature and applying the transaction in one
 * DynamoDB transaction. Sequential from one wallet (one at a time by design: its lease), then
 * WALLETS wallets in parallel. Prints numbers, asserts nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const WALLETS = Number(process.env.BENCH_WALLETS ?? 4);
const dir = mkdtempSync(join(tmpdir(), 'shroud-bench-chainb-'));
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

const { id: cookie } = await createSession('bench-user', 'password');
const headers = { cookie: `shroud_session=${cookie}`, 'content-type': 'application/json' };
async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(new URL(path, rt.url), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}
const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, p95: s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]! };
};
const PASSWORD = 'bench-wallet-pass';
async function fundedWallet(name: string) {
  const { wallet } = (await api('POST', '/api/wallets', { chain: 'b', name, password: PASSWORD })) as { wallet: { id: string; address: string } };
  await api('POST', `/api/wallets/${wallet.id}/airdrop`, { amount: 100 });
  return wallet;
}

try {
  const sink = await fundedWallet('sink');
  const one = await fundedWallet('one');
  const transfer = (walletId: string) => api('POST', '/api/chainb/transfer', { walletId, password: PASSWORD, amount: '0.001', recipientAddress: sink.address });
  await transfer(one.id); // deploys the account; every handler module loaded once, as a warm Lambda
  await api('GET', `/api/chainb/balance/${sink.address}`);

  const seq: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    await transfer(one.id);
    seq.push(performance.now() - t);
  }
  const seqSeconds = (performance.now() - t0) / 1000;

  const many: { id: string; address: string }[] = [];
  for (let i = 0; i < WALLETS; i++) many.push(await fundedWallet(`w${i}`)); // setup, not measured
  for (const w of many) await transfer(w.id); // deploys each account
  const par: number[] = [];
  const t1 = performance.now();
  await Promise.all(
    many.map(async (w) => {
      for (let i = 0; i < ROUNDS; i++) {
        const t = performance.now();
        await transfer(w.id);
        par.push(performance.now() - t);
      }
    }),
  );
  const parSeconds = (performance.now() - t1) / 1000;

  const reads: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    await api('GET', `/api/chainb/balance/${sink.address}`);
    reads.push(performance.now() - t);
  }
  const r = (x: number) => Math.round(x * 10) / 10;
  console.log(`chain B transfers through the local runtime (${ROUNDS} rounds)`);
  console.log(`  one wallet, sequential:   ${r(ROUNDS / seqSeconds)} transfers/s  median ${r(stats(seq).median)} ms  p95 ${r(stats(seq).p95)} ms`);
  console.log(
    `  ${WALLETS} wallets in parallel: ${r((ROUNDS * WALLETS) / parSeconds)} transfers/s  median ${r(stats(par).median)} ms  p95 ${r(stats(par).p95)} ms  (all to one recipient)`,
  );
  console.log(`  balance read:             median ${r(stats(reads).median)} ms  p95 ${r(stats(reads).p95)} ms`);
} finally {
  await rt.stop();
  rmSync(dir, { recursive: true, force: true });
}
