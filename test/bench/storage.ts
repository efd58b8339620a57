/**
 * Storage throughput through the local runtime (`npm run bench -- storage`): upload and download
 * of 1, 10 and 100 MB over HTTP, against their in-process floors measured in the same run
 * (upload: SHA-256 plus the CID import of the same bytes into memory; download: the same blocks
 * read back from memory and checked against their CIDs), and the server's peak RSS increase
 * during each 100 MB upload and download; BENCH_ROUNDS rounds of fresh bytes per size (3), the median
 * round printed with the range. The client runs in a child process so the memory measured is the server's
 * (the API, the emulator and the local S3's worker thread; DynamoDB Local is a separate Java process).
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { CID } from 'multiformats/cid';

const MB = 1024 * 1024;
const sizes = (process.env.BENCH_SIZES ?? '1,10,100').split(',').map(Number);
/** Rounds per size (BENCH_ROUNDS, default 3): the figures printed are the median round's. */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const dir = mkdtempSync(join(tmpdir(), 'shroud-bench-storage-'));
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
const { passwordProof } = await import('#lib/client/password-proof.ts');
const { exportContent, importContent } = await import('#lib/storage/cid.ts');
const { terminateCurves } = await import('#lib/zk/groth16.ts');

const { id: cookie } = await createSession('bench-user', 'password');
const proofFile = join(dir, 'proof.json');
writeFileSync(proofFile, JSON.stringify(await passwordProof('bench', 1n)));

/**
 * A full collection, and time for V8's concurrent sweeping to free what it found: a peak is then
 * measured from RSS without the garbage of what ran before (`npm run bench` starts scripts without
 * --expose-gc, so it is exposed here).
 */
setFlagsFromString('--expose-gc');
const fullGc = runInNewContext('gc') as () => void;
async function settle(): Promise<void> {
  fullGc();
  await new Promise((ok) => setTimeout(ok, 100));
}

/** Peak RSS since the last reset (Linux: VmHWM, reset by writing 5 to clear_refs); else sampled. */
function resetPeak(): () => number {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
  } catch {
    let peak = process.memoryUsage().rss;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    return () => (clearInterval(timer), peak);
  }
}

async function runClient<T>(args: string[], base = rt.url): Promise<T> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '_storage-client.ts'), base, cookie, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((ok) => child.on('close', ok));
  if (code !== 0) throw new Error(`client failed (${code})`);
  return JSON.parse(out) as T;
}

/** CPU seconds this process (every thread of it) used since `from`. */
const cpuSince = (from: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1e6;
};

/**
 * Runs `fn` and returns its result with the server process's peak RSS increase over it and the
 * CPU seconds the server process spent meanwhile (all its threads: handlers, emulator, local S3).
 */
async function withPeakRss<T>(fn: () => Promise<T>): Promise<[T, number, number]> {
  await settle();
  const before = process.memoryUsage().rss;
  const peak = resetPeak();
  const cpu = process.cpuUsage();
  const result = await fn();
  return [result, peak() - before, cpuSince(cpu)];
}

type Transfer = { downloadMs: number; download2Ms: number; redirected: boolean; answerMs: number; answer2Ms: number };

/**
 * The download client's own floor: the same client, run the same way, against a bare node:http
 * server in this process that answers the download route with a 302 to `bytes`, sent from memory
 * in 1 MiB writes (no API, no proof, no S3): what the client and the loopback cost alone.
 */
async function bareDownload(bytes: Buffer, path: string, checksum: string): Promise<Transfer> {
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    if (req.url !== '/bytes') return void res.writeHead(302, { location: `http://localhost:${port}/bytes` }).end();
    res.writeHead(200, { 'content-length': bytes.length, 'content-type': 'application/octet-stream' });
    let at = 0;
    const more = () => {
      while (at < bytes.length) {
        const piece = bytes.subarray(at, (at += MB));
        if (!res.write(piece)) return void res.once('drain', more);
      }
      res.end();
    };
    more();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as { port: number }).port;
  try {
    // `localhost`, as the runtime's URL: a fresh process's first lookup of it costs 10–15 ms.
    return await runClient<Transfer>([path, proofFile, checksum, 'download', 'bare', String(bytes.length)], `http://localhost:${port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  }
}

/**
 * The upload's own floor with this client: the same client, run the same way, against a bare
 * node:http server in this process that does the upload floor's work on the request as it streams
 * in (the multipart parse of the handler, SHA-256, the same CID import, blocks kept in memory) and
 * answers 201 {cid, size}: no API, no proof, no S3, no records. What storing the file adds is the
 * difference between this and the upload.
 */
async function bareUpload(path: string, checksum: string): Promise<{ uploadMs: number; cid: string }> {
  const { createServer } = await import('node:http');
  const { parseMultipart } = await import('#lib/http/multipart.ts');
  const server = createServer((req, res) => {
    const hash = createHash('sha256');
    let size = 0;
    const blocks = new Map<string, Uint8Array>();
    const store = { put: async (cid: CID, block: Uint8Array) => (blocks.set(cid.toString(), block), cid) };
    parseMultipart(req.headers['content-type'], req, {
      maxFileBytes: Number.MAX_SAFE_INTEGER,
      onFile: async ({ stream }) => {
        async function* hashed() {
          for await (const piece of stream as AsyncIterable<Buffer>) {
            hash.update(piece);
            size += piece.length;
            yield piece;
          }
        }
        return (await importContent(hashed(), store)).cid.toString();
      },
    }).then(
      ({ fields, files }) => {
        if (`sha256:${hash.digest('hex')}` !== fields.checksum) return void res.writeHead(400).end('checksum');
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ cid: files[0], size }));
      },
      (e: Error) => res.writeHead(500).end(e.message),
    );
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as { port: number }).port;
  try {
    return await runClient<{ uploadMs: number; cid: string }>([path, proofFile, checksum], `http://localhost:${port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  }
}
interface Round {
  floorMs: number;
  floorCpu: number;
  readFloorMs: number;
  readFloorCpu: number;
  up: { uploadMs: number; cid: string };
  upRss: number;
  upCpu: number;
  down: Transfer;
  downRss: number;
  downCpu: number;
  pre: { uploadMs: number; putMs: number; cid: string };
  preRss: number;
  preDown: Transfer;
  preDownRss: number;
  bare: Transfer;
  bareUp: { uploadMs: number; cid: string };
  bareUpCpu: number;
}

/**
 * One round at `size` MB: the direct upload, the floors, the direct upload's downloads, then the
 * presigned way with other bytes. The upload comes first so that its RSS is measured before the
 * floors' 100 MB of blocks in this process were freed (memory the allocator may keep, which an
 * upload after them would reuse without the RSS showing it).
 */
async function round(size: number): Promise<Round> {
  const bytes = randomBytes(size * MB);
  const path = join(dir, `file-${size}.bin`);
  writeFileSync(path, bytes);
  const checksum = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  const [up, upRss, upCpu] = await withPeakRss(() => runClient<{ uploadMs: number; cid: string }>([path, proofFile, checksum]));
  // The floors start from a collected heap, as each measured request does (withPeakRss).
  await settle();

  // The upload floor: SHA-256 + the same CID import into memory, in the 64 KiB pieces a stream brings.
  const memory = new Map<string, Uint8Array>();
  const memoryStore = {
    put: async (cid: CID, block: Uint8Array) => (memory.set(cid.toString(), block), cid),
    // The download floor's reads: the block, checked against its CID.
    async *get(cid: CID) {
      const block = memory.get(cid.toString())!;
      if (!createHash('sha256').update(block).digest().equals(cid.multihash.digest)) throw new Error('corrupt');
      yield block;
    },
  };
  let t = performance.now();
  let cpu = process.cpuUsage();
  const hash = createHash('sha256');
  const pieces = function* () {
    for (let i = 0; i < bytes.length; i += 65536) {
      const c = bytes.subarray(i, i + 65536);
      hash.update(c);
      yield c;
    }
  };
  const { cid: root } = await importContent(pieces(), memoryStore);
  hash.digest();
  const floorMs = performance.now() - t;
  const floorCpu = cpuSince(cpu);

  // The download floor: the same blocks read back from memory, each checked against its CID.
  t = performance.now();
  cpu = process.cpuUsage();
  let read = 0;
  for await (const chunk of exportContent(root, memoryStore)) read += chunk.length;
  const readFloorMs = performance.now() - t;
  const readFloorCpu = cpuSince(cpu);
  if (read !== bytes.length) throw new Error('download floor: wrong size');
  memory.clear();

  if (up.cid !== root.toString()) throw new Error('the server computed another CID');
  const [down, downRss, downCpu] = await withPeakRss(() => runClient<Transfer>([path, proofFile, checksum, 'download', up.cid, String(bytes.length)]));
  // The AWS way for large files (API Gateway takes at most 10 MB), with other bytes of the same
  // size: presigned PUT to S3, the finalising POST imports it from S3 (streamed) while S3 copies
  // it to its data object; then a download of it.
  const other = randomBytes(size * MB);
  const otherPath = join(dir, `other-${size}.bin`);
  writeFileSync(otherPath, other);
  const otherSum = `sha256:${createHash('sha256').update(other).digest('hex')}`;
  const otherCid = (await importContent([other], { put: async (c: CID) => c })).cid.toString();
  const [pre, preRss] = await withPeakRss(() => runClient<{ uploadMs: number; putMs: number; cid: string }>([otherPath, proofFile, otherSum, 'presigned']));
  if (pre.cid !== otherCid) throw new Error('the server computed another CID (presigned)');
  const [preDown, preDownRss] = await withPeakRss(() => runClient<Transfer>([otherPath, proofFile, otherSum, 'download', pre.cid, String(other.length)]));
  const bare = await bareDownload(bytes, path, checksum);
  const bareCpu = process.cpuUsage();
  const bareUp = await bareUpload(path, checksum);
  const bareUpCpu = cpuSince(bareCpu);
  if (bareUp.cid !== root.toString()) throw new Error('the bare server computed another CID');
  return { floorMs, floorCpu, readFloorMs, readFloorCpu, up, upRss, upCpu, down, downRss, downCpu, pre, preRss, preDown, preDownRss, bare, bareUp, bareUpCpu };
}

const msRange = (values: number[]) =>
  values.length > 1 ? `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)} ms` : `${values[0]!.toFixed(0)} ms`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

const fmt = (bytes: number, ms: number) => `${(bytes / MB / (ms / 1000)).toFixed(1)} MB/s`;
const report: string[] = [];
try {
  // Warm-up: handler modules loaded, the verification key and curve cached (as a warm Lambda).
  const warm = randomBytes(1024);
  writeFileSync(join(dir, 'warm.bin'), warm);
  const warmSum = `sha256:${createHash('sha256').update(warm).digest('hex')}`;
  const w = await runClient<{ cid: string }>([join(dir, 'warm.bin'), proofFile, warmSum]);
  await runClient([join(dir, 'warm.bin'), proofFile, warmSum, 'download', w.cid, '1024']);

  for (const size of sizes) {
    // Rounds of fresh bytes (new CIDs: every first download is a first), each against floors
    // measured in the same round: one run's ratio moves by several points with the machine's load.
    const rounds: Round[] = [];
    const loadNow = () =>
      loadavg()
        .map((l) => l.toFixed(1))
        .join(' ');
    const loadBefore = loadNow();
    for (let r = 0; r < ROUNDS; r++) rounds.push(await round(size));
    const load = loadNow();
    const bytes = size * MB;
    /**
     * The median round's figure, its ratio to the round's floor, the range (min–max) of ratios over
     * the rounds, and with a target (a percentage of the floor) how many rounds met it.
     */
    const line = (what: string, ms: (r: Round) => number, floorMs: (r: Round) => number, floorName: string, target?: number) => {
      const ratios = rounds.map((r) => (100 * floorMs(r)) / ms(r));
      const mid = rounds.find((r) => (100 * floorMs(r)) / ms(r) === median(ratios))!;
      const spread = rounds.length > 1 ? `  (${Math.min(...ratios).toFixed(0)}–${Math.max(...ratios).toFixed(0)} % over ${rounds.length} rounds)` : '';
      const met = target === undefined ? '' : `   (target >= ${target} %: met in ${ratios.filter((x) => x >= target).length} of ${rounds.length})`;
      return `  ${what.padEnd(40)} ${fmt(bytes, ms(mid)).padStart(11)}   ${floorName} ${fmt(bytes, floorMs(mid)).padStart(11)}   ${`${median(ratios).toFixed(0)} %`.padStart(5)} of it${spread}${met}`;
    };
    /** The most of any round, every round's figure, and with a target (MB) how many rounds stayed within it. */
    const mem = (what: string, delta: (r: Round) => number, targetMb?: number) => {
      const mbs = rounds.map((r) => delta(r) / MB);
      const each = rounds.length > 1 ? ` (the most of any round; each: ${mbs.map((m) => m.toFixed(0)).join(', ')})` : '';
      const met = targetMb === undefined ? '' : `   (target <= ${targetMb} MB: met in ${mbs.filter((m) => m <= targetMb).length} of ${rounds.length})`;
      return `  ${what.padEnd(40)} ${`${Math.max(...mbs).toFixed(0)} MB`.padStart(11)}${each}${met}`;
    };
    const cpuRange = (f: (r: Round) => number) => {
      const v = rounds.map(f);
      return rounds.length > 1 ? `${Math.min(...v).toFixed(2)}–${Math.max(...v).toFixed(2)} s` : `${v[0]!.toFixed(2)} s`;
    };
    const big = size >= 100;
    report.push(
      `${size} MB  (load average ${loadBefore} before the rounds, ${load} after, ${cpus().length} cores; the median of ${rounds.length} round${rounds.length > 1 ? 's' : ''})`,
      line(
        'upload (direct multipart POST)',
        (r) => r.up.uploadMs,
        (r) => r.floorMs,
        'upload floor',
        // Issue 39: most of what this client allows (a bare server doing only the floor's work reaches 43–58 % here).
        big ? 35 : undefined,
      ),
      line(
        'presigned upload: finalise',
        (r) => r.pre.uploadMs - r.pre.putMs,
        (r) => r.floorMs,
        'upload floor',
        big ? 50 : undefined,
      ),
      line(
        'first download',
        (r) => r.down.downloadMs,
        (r) => r.readFloorMs,
        'read floor  ',
        big ? 25 : undefined,
      ),
      line(
        'download again',
        (r) => r.down.download2Ms,
        (r) => r.readFloorMs,
        'read floor  ',
        undefined,
      ),
      line(
        'presigned file: first download',
        (r) => r.preDown.downloadMs,
        (r) => r.readFloorMs,
        'read floor  ',
        big ? 25 : undefined,
      ),
      line(
        'the client alone: upload',
        (r) => r.bareUp.uploadMs,
        (r) => r.floorMs,
        'upload floor',
        undefined,
      ),
      line(
        'the client alone: first download',
        (r) => r.bare.downloadMs,
        (r) => r.readFloorMs,
        'read floor  ',
        undefined,
      ),
      line(
        'the client alone: again',
        (r) => r.bare.download2Ms,
        (r) => r.readFloorMs,
        'read floor  ',
        undefined,
      ),
      mem('RSS + direct POST upload', (r) => r.upRss, big ? 64 : undefined),
      mem('RSS + presigned upload (PUT + finalise)', (r) => r.preRss, big ? 64 : undefined),
      mem('RSS + download (first and again)', (r) => r.downRss, big ? 64 : undefined),
      mem('RSS + presigned file download', (r) => r.preDownRss),
      `  ${'server CPU seconds (all threads)'.padEnd(40)} upload ${cpuRange((r) => r.upCpu)} vs its floor ${cpuRange((r) => r.floorCpu)} and the bare server's ${cpuRange((r) => r.bareUpCpu)}; download (first + again) ${cpuRange((r) => r.downCpu)} vs the read floor ${cpuRange((r) => r.readFloorCpu)}`,
      `  (download ${rounds.every((r) => r.down.redirected) ? 'answered 302 to the data object, its ETag checked' : 'answered with the bytes'}; the API's answer came after ${msRange(rounds.map((r) => r.down.answerMs))} on a first download, ${msRange(rounds.map((r) => r.down.answer2Ms))} again, ${msRange(rounds.map((r) => r.bare.answerMs))} from the bare server)`,
    );
  }
  console.log(report.join('\n'));
  console.log(`
upload floor = SHA-256 + ipfs-unixfs-importer (CIDv1, unixfs-v1-2025) into memory, in this process;
read floor = the same blocks read back from memory by ipfs-unixfs-exporter, each checked against its CID;
upload = multipart POST through the emulator (the client: node:http, the file streamed from disk, Content-Length set, as curl -F),
  streamed to the handler: proof check on the fields before the file part, then the file imported as it arrives, its bytes
  copied once into their place in the 8 MiB parts of its data object (a multipart upload to the local S3 on its worker
  thread, on disk), the DAG's root in a CAR shard, the index, pin records;
presigned (the AWS path for large files, other bytes of the same size): PUT to S3 (write-once: If-None-Match: *), then
  finalise = the POST that imports the object from S3 (streamed, If-Match its ETag) while S3 copies it server-side to the
  data object (a direct POST of 100 MB exists only locally: API Gateway takes 10 MB);
download = proof check, a HEAD of the upload's data object (its ETag compared with the one recorded as the upload wrote it),
  then 302 to it: first download and again alike; timed to the last byte the client read (the client, a fresh node process,
  hashes what it reads: its first 100 MB costs it more than the next);
the client alone = the same client, started the same way, against a bare node:http server of this process: for the upload,
  the handler's multipart parse, SHA-256 and the same import, the blocks kept in memory (no API, proof, S3 or records): what
  storing adds is the gap between it and the upload; for downloads, a 302 and the bytes from memory: the most a download
  can show with this client;
RSS + = this process's peak RSS during the request minus its RSS before, measured after a full collection: the API handlers,
  the emulator and the local S3 worker thread (one process; DynamoDB Local is a separate Java process, the client another
  process); each round's direct upload runs before that round's floors, so the first round's starts with no freed 100 MB
  for the allocator to hand back to it;
"met in k of N" counts the rounds (each against the floor of its own round) that met the target.
Wall-clock ratios move with the machine's load (the floors are measured in the same run, under the same load);
the CPU seconds do much less so: they count the work, not the waiting for a core.`);
} finally {
  await rt.stop();
  await terminateCurves();
  rmSync(dir, { recursive: true, force: true });
}
