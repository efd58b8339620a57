import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, openAsBlob } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'node:inspector/promises';
const dir = mkdtempSync(join(tmpdir(), 'car4-prof-'));
process.env.POWERTOOLS_LOG_LEVEL = 'CRITICAL';
const { startRuntime } = await import('#lib/local/runtime.ts');
const rt = await startRuntime({ port: 0, dataDir: join(dir, 'data'), env: { RATE_LIMIT_MULTIPLIER: '100' }, routes: (await import('#functions/routes.ts')).routes });
const { createSession } = await import('#lib/data/sessions.ts');
const { passwordProof } = await import('#lib/client/password-proof.ts');
const { id: cookie } = await createSession('bench-user', 'password');
const p = await passwordProof('bench', 1n);
const mode = process.argv[2] ?? 'upload';
async function up(size: number) {
  const bytes = randomBytes(size);
  const path = join(dir, `f${size}`); writeFileSync(path, bytes);
  const form = new FormData();
  form.append('proof', JSON.stringify(p.proof)); form.append('publicSignals', JSON.stringify(p.publicSignals)); form.append('commitment', p.commitment);
  form.append('checksum', `sha256:${createHash('sha256').update(bytes).digest('hex')}`);
  form.append('file', await openAsBlob(path), 'b.bin');
  const t = performance.now();
  const res = await fetch(new URL('/api/storage/upload', rt.url), { method: 'POST', body: form, headers: { cookie: `shroud_session=${cookie}` } });
  const j = await res.json() as { cid: string };
  console.log('upload', size, res.status, (performance.now() - t).toFixed(0), 'ms');
  return j.cid;
}
async function down(cid: string) {
  const t = performance.now();
  const dl = await fetch(new URL(`/api/storage/download/${cid}`, rt.url), { headers: { cookie: `shroud_session=${cookie}`, 'x-zk-proof': JSON.stringify(p.proof), 'x-zk-public-signals': JSON.stringify(p.publicSignals) }, redirect: 'manual' });
  const t2 = performance.now();
  const body = dl.status === 302 ? await (await fetch(dl.headers.get('location')!)).arrayBuffer() : await dl.arrayBuffer();
  console.log('download', dl.status, (t2 - t).toFixed(0), 'ms to answer,', (performance.now() - t).toFixed(0), 'ms total', body.byteLength);
}
await down(await up(1024));
const s = new Session(); s.connect(); await s.post('Profiler.enable'); await s.post('Profiler.start');
const cid = await up(100 * 1024 * 1024);
if (mode === 'download') { await s.post('Profiler.stop'); await s.post('Profiler.start'); await down(cid); }
const { profile } = await s.post('Profiler.stop');
const self = new Map<string, number>();
const dt = profile.timeDeltas!; const samples = profile.samples!;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>(); for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (id: number | undefined) => { if (id === undefined) return '-'; const n = byId.get(id)!; return `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-3).join('/')}:${n.callFrame.lineNumber}`; };
for (let i = 0; i < samples.length; i++) { const id = samples[i]!; const p1 = parent.get(id); const p2 = p1 && parent.get(p1); const p3 = p2 && parent.get(p2); const k = `${name(id)} < ${name(p1)} < ${name(p2)} < ${name(p3 || undefined)}`; self.set(k, (self.get(k) ?? 0) + (dt[i] ?? 0)); }
console.log([...self.entries()].sort((x, y) => y[1] - x[1]).slice(0, 30).map(([k, v]) => `${(v / 1000).toFixed(0).padStart(6)} ms ${k}`).join('\n'));
await rt.stop();
rmSync(dir, { recursive: true, force: true });
(await import('#lib/zk/groth16.ts')).terminateCurves();
