/**
 * Storage throughput through the local runtime (`npx tsx test/bench/storage.ts`): upload and
 * download of 1, 10 and 100 MB over HTTP, against SHA-256 plus CID import of the same bytes
 * in-process (the floor of what an upload must do), and the server's peak memory during the
 * 100 MB upload. The client runs in a child process so the memory measured is the server's
 * (the API, the emulator and the embedded s3rver; DynamoDB Local is a separate Java process).
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MB = 1024 * 1024;
const sizes = (process.env.BENCH_SIZES ?? '1,10,100').split(',').map(Number);
const dir = mkdtempSync(join(tmpdir(), 'shroud-bench-storage-'));
process.env.POWERTOOLS_LOG_LEVEL = 'CRITICAL';

const { startRuntime } = await import('#lib/local/runtime.ts');
const rt = await startRuntime({ port: 0, dataDir: join(dir, 'data'), env: { RATE_LIMIT_MULTIPLIER: '100' }, routes: (await import('#functions/routes.ts')).routes });
const { createSession } = await import('#lib/data/sessions.ts');
const { passwordProof } = await import('#lib/client/password-proof.ts');
const { discardingStore, importContent } = await import('#lib/storage/cid.ts');
const { terminateCurves } = await import('#lib/zk/groth16.ts');

const { id: cookie } = await createSession('bench-user', 'password');
const proofFile = join(dir, 'proof.json');
writeFileSync(proofFile, JSON.stringify(await passwordProof('bench', 1n)));

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

async function runClient(path: string, checksum: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '_storage-client.ts'), rt.url, cookie, path, proofFile, checksum], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((ok) => child.on('close', ok));
  if (code !== 0) throw new Error(`client failed (${code})`);
  return JSON.parse(out) as { uploadMs: number; downloadMs: number; download2Ms: number; redirected: boolean };
}

const fmt = (bytes: number, ms: number) => `${((bytes / MB) / (ms / 1000)).toFixed(1)} MB/s`;
const rows: Record<string, string | number>[] = [];
try {
  // Warm-up: handler modules loaded, the verification key and curve cached (as a warm Lambda).
  const warm = randomBytes(1024);
  writeFileSync(join(dir, 'warm.bin'), warm);
  await runClient(join(dir, 'warm.bin'), `sha256:${createHash('sha256').update(warm).digest('hex')}`);

  for (const size of sizes) {
    const bytes = randomBytes(size * MB);
    const path = join(dir, `file-${size}.bin`);
    writeFileSync(path, bytes);
    const checksum = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

    // The in-process floor: hash + CID import of the same bytes, in the 64 KiB pieces a stream brings.
    let t = performance.now();
    const hash = createHash('sha256');
    const pieces = function* () {
      for (let i = 0; i < bytes.length; i += 65536) {
        const c = bytes.subarray(i, i + 65536);
        hash.update(c);
        yield c;
      }
    };
    await importContent(pieces(), discardingStore);
    hash.digest();
    const floorMs = performance.now() - t;

    global.gc?.();
    const before = process.memoryUsage().rss;
    const peak = resetPeak();
    const r = await runClient(path, checksum);
    const peakRss = peak();
    rows.push({
      size: `${size} MB`,
      floor: fmt(bytes.length, floorMs),
      upload: fmt(bytes.length, r.uploadMs),
      'upload/floor': +(floorMs / r.uploadMs).toFixed(2),
      'download (first)': fmt(bytes.length, r.downloadMs),
      'download (again)': fmt(bytes.length, r.download2Ms),
      redirected: String(r.redirected),
      'server peak RSS - before': `${((peakRss - before) / MB).toFixed(0)} MB`,
    });
  }
  console.table(rows);
  console.log('floor = SHA-256 + ipfs-unixfs-importer (CIDv1, unixfs-v1-2025) in-process, no storage;');
  console.log('upload = multipart POST through the emulator: proof check, import into S3 blocks (s3rver on disk), pin records;');
  console.log('download = proof check, blocks read back and hashed (<= 4 MiB) or 302 to the verified copy (first time: assembled).');
} finally {
  await rt.stop();
  await terminateCurves();
  rmSync(dir, { recursive: true, force: true });
}
