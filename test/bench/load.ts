/**
 * Load (`npm run bench -- load`): LOAD_CLIENTS concurrent clients (200) through a mixed workload
 * against `npm start` in a child process for LOAD_SECONDS (60), their starts spread over
 * LOAD_RAMP_SECONDS (10). The clients share LOAD_ACCOUNTS (20) accounts signed in before the
 * clock starts, and loop: zk-toolkit calls, uploads, downloads of their own files, share links,
 * listings, and a few sign-ups and logins (bcrypt: 2.5 % each). The rate limits are multiplied away (RATE_LIMIT_MULTIPLIER) so
 * that they are not what is measured. Prints per-route p50/p99, every 5xx, and at the end
 * downloads every upload that answered 201 and compares its bytes: zero 5xx and no lost upload
 * is the pass mark (exit 1 otherwise). It measures; it asserts no time.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIdentity } from '#lib/client/identity.ts';
import { npmStart } from '../support/npm-start.ts';
import { HttpClient } from '../support/runtime.ts';

const CLIENTS = Number(process.env.LOAD_CLIENTS ?? 200);
const SECONDS = Number(process.env.LOAD_SECONDS ?? 60);
/** Clients start spread over this many seconds: 200 bcrypt hashes in one instant would measure bcrypt alone. */
const RAMP_SECONDS = Number(process.env.LOAD_RAMP_SECONDS ?? 10);
/** Accounts the clients share (made before the clock starts). */
const ACCOUNTS = Number(process.env.LOAD_ACCOUNTS ?? 20);
const PASSWORD = 'load test password';

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const pick = <T>(xs: readonly T[]) => xs[Math.floor(Math.random() * xs.length)]!;

/** Latencies and statuses per route label. */
const stats = new Map<string, { ms: number[]; statuses: Map<number | string, number> }>();
const failures: string[] = [];
function record(label: string, ms: number, status: number | string, detail = '') {
  let s = stats.get(label);
  if (!s) stats.set(label, (s = { ms: [], statuses: new Map() }));
  s.ms.push(ms);
  s.statuses.set(status, (s.statuses.get(status) ?? 0) + 1);
  if (typeof status === 'string' || status >= 500) failures.push(`${label}: ${status} ${detail}`.slice(0, 300));
}

async function timed<T extends { status: number; json?: any }>(label: string, call: () => Promise<T>): Promise<T | undefined> {
  const t = performance.now();
  try {
    const res = await call();
    record(label, performance.now() - t, res.status, res.status >= 400 ? JSON.stringify(res.json) : '');
    return res;
  } catch (e) {
    record(label, performance.now() - t, `network: ${(e as Error).message}`);
    return undefined;
  }
}

/** Bytes of a download answer: streamed, or by the redirect it answers with. */
async function bytesOf(res: { status: number; res: Response }): Promise<Uint8Array> {
  if (res.status >= 300 && res.status < 400) return new Uint8Array(await (await fetch(res.res.headers.get('location')!)).arrayBuffer());
  return new Uint8Array(await res.res.arrayBuffer());
}

const dataDir = mkdtempSync(join(tmpdir(), 'shroud-load-'));
const server = await npmStart(dataDir, { RATE_LIMIT_MULTIPLIER: '100000' });
console.log(
  `npm start on ${server.url}; ${CLIENTS} clients for ${SECONDS} s (started over ${RAMP_SECONDS} s); ${cpus().length} cores, load average before ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);

const uploads: { client: HttpClient; fileId: string; sha: string; size: number }[] = [];
let stopAt = 0;
try {
  const identity = await createIdentity(PASSWORD, 100_000); // one key pair for all: the client-side KDF is not what is measured
  const runId = Date.now().toString(36);

  // Setup, not measured: the accounts the clients use. Clients share them as tabs share a
  // session (a login revokes the account's other sessions), so sign-ups and logins are part of
  // the measured mix below instead of 400 bcrypt runs in the first seconds.
  const accounts: HttpClient[] = [];
  const logins: string[] = [];
  const signUp = async (name: string) => {
    const c = new HttpClient(server.url);
    for (let attempt = 0; ; attempt++) {
      const reg = await c.post('/api/auth/register', { username: name, password: PASSWORD, ...identity.encrypted });
      const login = reg.status === 201 || reg.status === 400 ? await c.post('/api/auth/login', { username: name, password: PASSWORD }) : reg;
      if (login.status === 200) return c;
      if (attempt === 5) throw new Error(`setup: ${name}: ${reg.status} ${login.status} ${JSON.stringify(login.json)}`);
    }
  };
  const setupStart = Date.now();
  for (let i = 0; i < ACCOUNTS; i += 4) {
    accounts.push(...(await Promise.all(Array.from({ length: Math.min(4, ACCOUNTS - i) }, (_, j) => signUp(`load_${runId}_a${i + j}`)))));
  }
  for (let i = 0; i < 4; i++) logins.push(`load_${runId}_l${i}`), await signUp(logins[i]!);
  console.log(`setup: ${ACCOUNTS + 4} accounts registered and signed in in ${((Date.now() - setupStart) / 1000).toFixed(1)} s`);

  let registrations = 0;
  async function client(n: number) {
    await new Promise((r) => setTimeout(r, (n / CLIENTS) * RAMP_SECONDS * 1000));
    const c = new HttpClient(server.url);
    for (const [k, v] of accounts[n % accounts.length]!.jar) c.jar.set(k, v);
    const mine: { fileId: string; bytes: Uint8Array }[] = [];
    while (Date.now() < stopAt) {
      const r = Math.random();
      if (r < 0.3) {
        const a = randomBytes(8).readBigUInt64BE().toString();
        if (Math.random() < 0.5) await timed('POST /api/zk-toolkit/hash/poseidon', () => c.post('/api/zk-toolkit/hash/poseidon', { inputs: [a, '42'] }));
        else await timed('POST /api/zk-toolkit/field/mul', () => c.post('/api/zk-toolkit/field/mul', { a, b: a }));
      } else if (r < 0.5) {
        const bytes = randomBytes(pick([1_000, 16_000, 64_000, 256_000]));
        const f = new FormData();
        f.append('encryptedData', bytes.toString('base64'));
        f.append('iv', 'aXY=');
        f.append('salt', 'c2FsdA==');
        f.append('filename', `load-${n}-${mine.length}.enc`);
        const up = await timed('POST /api/storage/upload', () => c.request('POST', '/api/storage/upload', { body: f }));
        if (up?.status === 201) {
          mine.push({ fileId: up.json.fileId, bytes });
          uploads.push({ client: c, fileId: up.json.fileId, sha: sha256(bytes), size: bytes.length });
        }
      } else if (r < 0.7 && mine.length) {
        const file = pick(mine);
        const t = performance.now();
        try {
          const dl = await c.post('/api/storage/download', { fileId: file.fileId });
          const got = dl.status < 400 ? await bytesOf(dl) : undefined;
          const same = got && sha256(got) === sha256(file.bytes);
          record('POST /api/storage/download', performance.now() - t, dl.status, dl.status >= 400 ? JSON.stringify(dl.json) : same ? '' : 'bytes differ');
          if (got && !same) failures.push(`download ${file.fileId}: bytes differ`);
        } catch (e) {
          record('POST /api/storage/download', performance.now() - t, `network: ${(e as Error).message}`);
        }
      } else if (r < 0.8 && mine.length) {
        const share = await timed('POST /api/storage/share', () => c.post('/api/storage/share', { fileId: pick(mine).fileId, expiresIn: 24 }));
        if (share?.status === 200)
          await timed('GET /api/storage/shared/:token', () => new HttpClient(server.url).get(`/api/storage/shared/${share.json.shareToken}`));
      } else if (r < 0.95) {
        await timed('GET /api/storage/files', () => c.get('/api/storage/files'));
      } else if (r < 0.975) {
        const username = `load_${runId}_r${registrations++}`;
        await timed('POST /api/auth/register', () =>
          new HttpClient(server.url).post('/api/auth/register', { username, password: PASSWORD, ...identity.encrypted }),
        );
      } else {
        await timed('POST /api/auth/login', () => new HttpClient(server.url).post('/api/auth/login', { username: pick(logins), password: PASSWORD }));
      }
    }
  }

  const started = Date.now();
  stopAt = started + SECONDS * 1000;
  await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)));
  const elapsed = (Date.now() - started) / 1000;

  // No lost upload: every 201 downloads with the bytes that were sent (a few at a time).
  let lost = 0;
  for (let i = 0; i < uploads.length; i += 20) {
    await Promise.all(
      uploads.slice(i, i + 20).map(async (u) => {
        const dl = await u.client.post('/api/storage/download', { fileId: u.fileId });
        const got = dl.status < 400 ? await bytesOf(dl) : undefined;
        if (!got || sha256(got) !== u.sha) {
          lost++;
          failures.push(`lost upload ${u.fileId}: ${dl.status} ${JSON.stringify(dl.json)}`);
        }
      }),
    );
  }

  const q = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
  const rows = [...stats]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([label, s]) => {
      const ms = [...s.ms].sort((a, b) => a - b);
      return {
        route: label,
        requests: ms.length,
        'req/s': +(ms.length / elapsed).toFixed(1),
        'p50 ms': Math.round(q(ms, 0.5)),
        'p99 ms': Math.round(q(ms, 0.99)),
        'max ms': Math.round(ms[ms.length - 1]!),
        statuses: [...s.statuses].map(([k, v]) => `${k}×${v}`).join(' '),
      };
    });
  console.table(rows);
  const total = rows.reduce((n, r) => n + r.requests, 0);
  const fiveXx = [...stats.values()].reduce((n, s) => n + [...s.statuses].filter(([k]) => typeof k === 'string' || k >= 500).reduce((m, [, v]) => m + v, 0), 0);
  console.log(
    `${total} requests in ${elapsed.toFixed(1)} s (${(total / elapsed).toFixed(0)} req/s); 5xx or network errors: ${fiveXx}; uploads answered 201: ${uploads.length}, lost: ${lost}; load average after ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  for (const f of [...new Set(failures)].slice(0, 10)) console.log(`  ${f}`);
  // Why the server answered 5xx, from its own log lines (the cause is logged, not answered).
  const causes = new Map<string, number>();
  for (const m of server.output().matchAll(/"name":"(\w+)"/g)) causes.set(m[1]!, (causes.get(m[1]!) ?? 0) + 1);
  if (causes.size) console.log(`error names in the server's log: ${[...causes].map(([k, v]) => `${k}×${v}`).join(' ')}`);
  process.exitCode = fiveXx || lost || failures.length ? 1 : 0;
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
