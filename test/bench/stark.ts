// STARK benchmark at the shipped parameters: prove and verify p50 (wall clock, and in Node the CPU
// time of this process, since the machine is shared) and proof size, in Node and — when Debian's
// chromium is installed — in headless Chromium, where the client proves. Prints numbers, asserts nothing.
// Run: npm run bench -- stark
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { generateSecretKey, publicKeyHash, proveSession, verifySession, SECURITY, securityTable } from '../../lib/stark/index.ts';
import { createSessionKey, proveSessionKey } from '../../lib/client/stark-key.ts';
import { verifyClientSessionProof, decodeKeyHash } from '../../lib/stark/index.ts';

const PROVE_RUNS = 9;
const VERIFY_RUNS = 31;
const BROWSER_CPU_VERIFY_RUNS = 200;

function p50(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
function timed<T>(f: () => T): { wall: number; cpu: number; value: T } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = f();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1000, value };
}
const f = (x: number) => x.toFixed(1);

console.log(
  `stark params: blowup ${SECURITY.blowup}, queries ${SECURITY.queries}, grinding ${SECURITY.grindingBits} bits, extension degree ${SECURITY.extensionDegree}, trace ${SECURITY.traceLength} rows, hash in the AIR: RPO`,
);
console.log(`stark security bits: conjectured ${SECURITY.conjecturedBits}, proven ${SECURITY.provenBits}`);
console.log(`load average (1 min) at start: ${loadavg()[0].toFixed(1)}`);

// Node, server-held mode (what /api/zkauth/prove does for clients that send no proof).
const sk = generateSecretKey();
const inputs = { keyHash: publicKeyHash(sk), sessionId: 'bench-session', expiresAt: 1_900_000_000 };
proveSession(sk, inputs); // warm-up (JIT, twiddle caches)
const proveWall: number[] = [];
const proveCpu: number[] = [];
let last = proveSession(sk, inputs);
for (let i = 0; i < PROVE_RUNS; i++) {
  const r = timed(() => proveSession(sk, inputs));
  proveWall.push(r.wall);
  proveCpu.push(r.cpu);
  last = r.value;
}
verifySession(last.starkProof, last.publicInputs); // warm-up
const verifyWall: number[] = [];
const verifyCpu: number[] = [];
let ok = true;
for (let i = 0; i < VERIFY_RUNS; i++) {
  const r = timed(() => verifySession(last.starkProof, last.publicInputs));
  verifyWall.push(r.wall);
  verifyCpu.push(r.cpu);
  ok &&= r.value;
}
console.log(`node prove p50 ms: wall ${f(p50(proveWall))}, cpu ${f(p50(proveCpu))} (runs ${PROVE_RUNS})`);
console.log(`node verify p50 ms: wall ${f(p50(verifyWall))}, cpu ${f(p50(verifyCpu))} (runs ${VERIFY_RUNS}, all verified: ${ok})`);
console.log(`node proof size bytes: ${last.starkProof.length / 2}`);

// Node, client-held mode (lib/client proves; the server derives the inputs and verifies).
const key = createSessionKey();
const now = Math.floor(Date.now() / 1000);
const cp = timed(() => proveSessionKey(key, { sessionId: 'bench-session', nowSeconds: now }));
const cv = timed(() => verifyClientSessionProof(cp.value.stark_proof, { keyHash: decodeKeyHash(key.keyHash)!, sessionId: 'bench-session', nowSeconds: now }));
console.log(
  `node client-held: prove ${f(cp.wall)} ms, server verify ${f(cv.wall)} ms, verified: ${cv.value !== null}, size ${cp.value.stark_proof.length / 2} bytes`,
);

// Headless Chromium (Debian's package), the client's environment.
const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
if (!chromium) {
  console.log('browser: skipped (no chromium executable; `apt-get install chromium` to run it)');
} else {
  const dir = mkdtempSync(join(tmpdir(), 'stark-bench-'));
  try {
    const bundle = await build({
      entryPoints: [join(import.meta.dirname, '_stark-browser-entry.ts')],
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'iife',
      globalName: 'starkBench',
      target: 'es2022',
      minify: true,
      logLevel: 'silent',
    });
    // An inline synchronous script runs before the load event, so --dump-dom prints its result.
    // Chromium runs under bash so that `times` reports the CPU time of its whole process tree
    // (the renderer is reaped by the browser process): the steadier figure on a shared machine.
    const runPage = (proveRuns: number, verifyRuns: number, name: string) => {
      const html = `<!doctype html><html><body><pre id="out"></pre><script>${bundle.outputFiles[0].text}
try { document.getElementById('out').textContent = starkBench.run(${proveRuns}, ${verifyRuns}); } catch (e) { document.getElementById('out').textContent = 'ERROR ' + e; }</script></body></html>`;
      const page = join(dir, `${name}.html`);
      writeFileSync(page, html);
      const res = spawnSync(
        'bash',
        [
          '-c',
          '"$@" 2>/dev/null; times >&2',
          'bash',
          chromium,
          '--headless',
          '--no-sandbox',
          '--no-zygote',
          '--disable-gpu',
          '--virtual-time-budget=600000',
          '--dump-dom',
          `file://${page}`,
        ],
        {
          encoding: 'utf8',
          timeout: 300_000,
        },
      );
      const m = /<pre id="out">([^<]*)<\/pre>/.exec(res.stdout ?? '');
      // `times`: the shell's user and system time, then its children's (m and s each).
      const t = /\n([0-9]+)m([0-9.]+)s ([0-9]+)m([0-9.]+)s\s*$/.exec(res.stderr ?? '');
      const cpuMs = t ? (Number(t[1]) * 60 + Number(t[2]) + Number(t[3]) * 60 + Number(t[4])) * 1000 : NaN;
      return { m, res, cpuMs };
    };
    const { m, res } = runPage(PROVE_RUNS, VERIFY_RUNS, 'bench');
    if (!m || m[1].startsWith('ERROR')) {
      console.log(`browser: failed (${m?.[1] ?? res.stderr?.split('\n').slice(0, 2).join(' ')})`);
    } else {
      const r = JSON.parse(m[1].replace(/&quot;/g, '"').replace(/&amp;/g, '&')) as {
        prove: number[];
        verify: number[];
        ok: boolean;
        bytes: number;
        userAgent: string;
      };
      console.log(`browser: ${r.userAgent.match(/(Headless)?Chrome\/[\d.]+/)?.[0] ?? r.userAgent}`);
      console.log(`browser prove p50 ms: wall ${f(p50(r.prove))} (runs ${r.prove.length})`);
      console.log(`browser verify p50 ms: wall ${f(p50(r.verify))} (runs ${r.verify.length}, all verified: ${r.ok})`);
      console.log(`browser proof size bytes: ${r.bytes}`);
      // CPU per operation: a page that only makes the warm-up proof, against pages that add proofs or verifications.
      // Each page three times, interleaved, and the medians compared: a launch's own CPU time varies by a second or more.
      const cpu = { base: [] as number[], prove: [] as number[], verify: [] as number[] };
      for (let i = 0; i < 3; i++) {
        cpu.base.push(runPage(0, 0, 'base').cpuMs);
        cpu.prove.push(runPage(PROVE_RUNS, 0, 'prove').cpuMs);
        cpu.verify.push(runPage(0, BROWSER_CPU_VERIFY_RUNS, 'verify').cpuMs);
      }
      const base = p50(cpu.base);
      console.log(
        `browser CPU time (chromium's whole process tree, every thread, median of 3 launches minus a page that makes only the warm-up proof): prove ${f((p50(cpu.prove) - base) / PROVE_RUNS)} ms, verify ${f((p50(cpu.verify) - base) / BROWSER_CPU_VERIFY_RUNS)} ms (mean of ${PROVE_RUNS} / ${BROWSER_CPU_VERIFY_RUNS}); launches in s: base ${cpu.base.map((x) => f(x / 1000)).join(' ')}, prove ${cpu.prove.map((x) => f(x / 1000)).join(' ')}, verify ${cpu.verify.map((x) => f(x / 1000)).join(' ')}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log('\nsecurity table (securityTable(), as in docs/stark.md):');
console.log(securityTable());
