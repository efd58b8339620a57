/**
 * The embedded chain A's persistence (`npm run bench -- chain-a-persistence`): per-transaction
 * cost from 100 to 10,000 transactions in one DATA_DIR (issue 39's target: flat, off the event
 * loop). Plain SOL transfers, so that the trees' capacity is not what is measured
 * (test/bench/chain-a-capacity.ts is). For each window: the median milliseconds per transaction
 * with DATA_DIR (log append awaited, a snapshot queued every 500 changes) and in memory (no
 * persistence) — the difference is what persistence costs — and, at each mark, what the former
 * `persist` (the whole snapshot and the whole ledger JSON written synchronously after every
 * transaction) costs at that size, timed once. Prints numbers, asserts nothing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { buildAndSignTx } from '@lightprotocol/stateless.js';
import { Keypair, SystemProgram } from '@solana/web3.js';

const TOTAL = Number(process.env.BENCH_TRANSACTIONS ?? 10_000);
const MARKS = [100, 1_000, 10_000].filter((m) => m <= TOTAL);
const WINDOW = 100;
const dir = mkdtempSync(join(tmpdir(), 'shroud-bench-chaina-persist-'));
const { LocalChainA } = await import('#lib/local/chain-a/chain.ts');

type Chain = Awaited<ReturnType<typeof LocalChainA.open>>;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Sends TOTAL transfers; per mark, the median and the slowest transaction of the window ending there. */
async function drive(chain: Chain, atMark?: (n: number) => void) {
  const payer = Keypair.generate();
  const to = Keypair.generate().publicKey;
  await chain.airdrop(payer.publicKey, 1_000_000_000_000n);
  const out = new Map<number, { median: number; max: number }>();
  const window: number[] = [];
  for (let n = 1; n <= TOTAL; n++) {
    const t = performance.now();
    const { blockhash } = await chain.rpc.getLatestBlockhash();
    await chain.sendAndConfirm(
      buildAndSignTx([SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 1_000_000 + n })], payer, blockhash),
    );
    window.push(performance.now() - t);
    if (window.length > WINDOW) window.shift();
    if (MARKS.includes(n)) {
      out.set(n, { median: median(window), max: Math.max(...window) });
      atMark?.(n);
    }
  }
  return out;
}

try {
  console.log(
    `chain A persistence: ${TOTAL} SOL transfers; load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} (shared machine: figures move between runs)`,
  );
  const formerPersist = new Map<number, { ms: number; mb: number }>();
  const persisted = await LocalChainA.open(join(dir, 'data'));
  const withDir = await drive(persisted, (n) => {
    // The former persist at this size: runtime snapshot + every ledger entry as one JSON, written synchronously.
    const ledger = readFileSync(join(dir, 'data', 'chain-a', 'log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { e?: unknown })
      .flatMap((r) => (r.e ? [r.e] : []));
    const t = performance.now();
    const bytes = Buffer.concat([persisted.snapshot(), Buffer.from(JSON.stringify(ledger))]);
    writeFileSync(join(dir, 'former.bin'), bytes);
    formerPersist.set(n, { ms: performance.now() - t, mb: bytes.length / 1e6 });
  });
  await persisted.close();
  const inMemory = await drive(await LocalChainA.open(undefined));
  console.table(
    MARKS.map((n) => ({
      'transactions so far': n,
      'with DATA_DIR median ms/tx': withDir.get(n)!.median.toFixed(2),
      'slowest of last 100 ms': withDir.get(n)!.max.toFixed(1),
      'in memory median ms/tx': inMemory.get(n)!.median.toFixed(2),
      'persistence ms/tx': (withDir.get(n)!.median - inMemory.get(n)!.median).toFixed(2),
      'former persist ms/tx (sync)': formerPersist.get(n)!.ms.toFixed(1),
      'former file MB': formerPersist.get(n)!.mb.toFixed(1),
    })),
  );
  const first = withDir.get(MARKS[0]!)!.median;
  const last = withDir.get(MARKS.at(-1)!)!.median;
  console.log(
    `per-transaction cost at ${MARKS.at(-1)} vs ${MARKS[0]}: ${(last / first).toFixed(2)}× — target flat (≤ 1.25×) ${last / first <= 1.25 ? '✔' : '✘'}`,
  );
  console.log("on the event loop: the line's JSON, and every 500 changes the runtime's toBytes (the slowest column); the writes are on libuv's pool");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
