import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityProofRequest, unlockIdentity } from '#lib/client/identity.ts';
import { HttpClient } from '../support/runtime.ts';
import { newIdentity, PASSWORD, uniqueName } from './identity-helpers.ts';

/**
 * The "done when": the real `npm start` (its own process, its own DATA_DIR, a free port),
 * then register → login → session → me → identity → submit-proof → logout over HTTP, and the
 * proof read back from the registry's get_proof (GET /api/chainb/proofs/:proofId).
 */
const dataDir = mkdtempSync(join(tmpdir(), 'shroud-npm-start-'));
let child: ChildProcess;
let base: string;

const processesUsing = (dir: string) =>
  execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(dir) && !l.includes('ps -eo'));

beforeAll(async () => {
  child = spawn('npm', ['start'], {
    cwd: join(import.meta.dirname, '..', '..'),
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: 'WARN', RATE_LIMIT_MULTIPLIER: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: npm, tsx and node all get the SIGTERM
  });
  let err = '';
  child.stderr!.on('data', (d) => (err += String(d)));
  base = await new Promise<string>((ok, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`npm start did not listen in time\n${out}\n${err}`)), 100_000);
    child.stdout!.on('data', (d) => {
      out += String(d);
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    });
    child.once('exit', (code) => fail(new Error(`npm start exited with ${code}\n${out}\n${err}`)));
  });
}, 120_000);

afterAll(async () => {
  if (child?.pid && child.exitCode === null) {
    const exited = new Promise((ok) => child.once('exit', ok));
    process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
  // npm, tsx, node and DynamoDB Local (java) all stop: the group empties and nothing runs on the data dir.
  const groupAlive = () => {
    if (!child?.pid) return false;
    try {
      process.kill(-child.pid, 0);
      return true;
    } catch {
      return false; // ESRCH: the whole group is gone
    }
  };
  for (let i = 0; i < 150 && (groupAlive() || processesUsing(dataDir).length); i++) await new Promise((ok) => setTimeout(ok, 100));
  const left = processesUsing(dataDir);
  if (groupAlive()) left.push(`process group ${child.pid} still alive`);
  rmSync(dataDir, { recursive: true, force: true });
  expect(left).toEqual([]);
}, 60_000);

describe('npm start', () => {
  it('register → login → session → me → identity → submit-proof → logout, then get_proof', async () => {
    const client = new HttpClient(base);
    const username = uniqueName('e2e');
    const { encrypted } = await newIdentity();

    const reg = await client.post('/api/auth/register', { username, password: PASSWORD, ...encrypted });
    expect(reg.status).toBe(201);
    const { zkId, id } = reg.json.user;

    const login = await client.post('/api/auth/login', { username, password: PASSWORD });
    expect(login.status).toBe(200);
    expect(login.json.user).toEqual({ id, username, zkId });

    expect((await client.get('/api/auth/session')).json).toMatchObject({ authenticated: true, user: { id, zkId } });
    expect((await client.get('/api/auth/me')).json).toEqual({ user: { id, zkId, username } });

    const blob = await client.get('/api/auth/identity');
    expect(blob.status).toBe(200);
    const privateKey = await unlockIdentity(blob.json, PASSWORD);

    const proof = await client.post('/api/chainb/submit-proof', await identityProofRequest(zkId, { privateKey, publicKeyBase64: blob.json.identityPublicKey }));
    expect(proof.status).toBe(200);
    expect(proof.json).toMatchObject({ success: true, txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), contractAddress: expect.stringMatching(/^0x[0-9a-f]{64}$/) });

    expect((await client.post('/api/auth/logout')).status).toBe(200);
    expect((await client.get('/api/auth/me')).status).toBe(401);

    const stored = await client.get(`/api/chainb/proofs/${proof.json.proofId}`);
    expect(stored.status).toBe(200);
    expect(stored.json.contractAddress).toBe(proof.json.contractAddress);
    expect(stored.json.proof).toMatchObject({
      proof_id: `0x${proof.json.proofId.replace(/-/g, '').padStart(64, '0')}`,
      zk_id: `0x${Buffer.from(zkId).toString('hex').padStart(64, '0')}`,
      proof_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      owner: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
  });
});
