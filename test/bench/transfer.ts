/**
 * Shielded transfers through the API (`npm run bench -- transfer`): deposit latency (HTTP →
 * session, wallet lease, the transfer on the local chain A, the conditional tree append in
 * DynamoDB), withdraw latency (proof verification, root and nullifier checks, the conditional
 * spend, the payout transaction), the client's proving time (lib/client: the Merkle path from the
 * pool's leaves and snarkjs's fullProve with the withdraw circuit), and verification alone
 * (lib/zk/groth16.ts). Prints numbers, asserts nothing.
 */
import { Keypair } from '@solana/web3.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const POOL = 'sol-0.1';
const dir = mkdtempSync(join(tmpdir(), 'shroud-bench-transfer-'));
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
const { createNote, noteCommitment } = await import('#lib/client/transfer-note.ts');
const { fetchLeaves, proveWithdrawal } = await import('#lib/client/withdraw-proof.ts');
const { poolSignal, recipientSignal } = await import('#lib/transfer/statement.ts');
const { verifyProof, terminateCurves } = await import('#lib/zk/groth16.ts');

const { id: cookie } = await createSession('bench-user', 'password');
async function api(method: string, path: string, body?: unknown, signedIn = true) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(signedIn ? { cookie: `shroud_session=${cookie}` } : {}) };
  const res = await fetch(new URL(path, rt.url), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}
const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!.toFixed(1), p95: s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]!.toFixed(1), min: s[0]!.toFixed(1) };
};
async function time<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const out = await fn();
  return [out, performance.now() - t];
}

try {
  const { wallet } = (await api('POST', '/api/wallets', { chain: 'a', name: 'bench' })) as { wallet: { id: string } };
  await api('POST', `/api/wallets/${wallet.id}/airdrop`, { amount: 100 });
  const deposit = async () => {
    const note = createNote(POOL);
    await api('POST', '/api/transfer/deposit', { pool: POOL, walletId: wallet.id, commitment: await noteCommitment(note) });
    return note;
  };
  const leaves = () => fetchLeaves(async (p) => (await api('GET', p, undefined, false)) as { leaves: string[]; size: number }, POOL);

  // warm-up: every handler module loaded once, the circuit and the curve built, as a warm Lambda
  const warm = await deposit();
  await api('POST', '/api/transfer/withdraw', await proveWithdrawal(warm, await leaves(), Keypair.generate().publicKey.toBase58()), false);

  const notes = [];
  const t = { deposit: [] as number[], prove: [] as number[], verify: [] as number[], withdraw: [] as number[] };
  for (let i = 0; i < ROUNDS; i++) {
    const [note, ms] = await time(deposit);
    notes.push(note);
    t.deposit.push(ms);
  }
  for (const note of notes) {
    const recipient = Keypair.generate().publicKey.toBase58();
    const all = await leaves();
    const [req, proveMs] = await time(() => proveWithdrawal(note, all, recipient));
    t.prove.push(proveMs);
    const signals = [req.root, req.nullifierHash, (await recipientSignal(recipient)).toString(), req.relayerFee, (await poolSignal(req.pool)).toString()];
    const [valid, verifyMs] = await time(() => verifyProof('withdraw', req.proof, signals));
    if (!valid) throw new Error('a proof did not verify');
    t.verify.push(verifyMs);
    const [res, withdrawMs] = await time(() => api('POST', '/api/transfer/withdraw', req, false));
    if (res.status !== 'paid') throw new Error(`withdrawal not paid at once: ${JSON.stringify(res)}`);
    t.withdraw.push(withdrawMs);
  }
  console.log(`transfer, ${ROUNDS} rounds each, pool ${POOL} (tree of ${ROUNDS + 1} leaves at the end)`);
  console.table([
    { what: 'POST /api/transfer/deposit (chain transfer + tree append)', ...stats(t.deposit) },
    { what: 'lib/client proveWithdrawal (path + fullProve)', ...stats(t.prove) },
    { what: 'verifyProof(withdraw) in process', ...stats(t.verify) },
    { what: 'POST /api/transfer/withdraw (verify + spend + payout)', ...stats(t.withdraw) },
  ]);
} finally {
  await terminateCurves();
  await rt.stop();
  rmSync(dir, { recursive: true, force: true });
}
