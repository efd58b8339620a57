import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * vitest's globalSetup for `npm run test:assets` (test/assets.config.ts): `npm run start:assets`
 * on a free port, on cdk.out as it is (CI synthesized it just before), and its URL as
 * SHROUD_BASE_URL, which test/support/runtime.ts gives the API tests instead of a runtime of
 * their own. The functions get the test run's rate limits as a stage's functionEnvironment would.
 */
const root = join(import.meta.dirname, '..', '..');

export default async function setup(): Promise<() => Promise<void>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'shroud-assets-'));
  const child = spawn(
    process.execPath,
    [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'cdk', 'start-assets.ts'), '--reuse', '--port', '0'],
    {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, SHROUD_ASSETS_FUNCTION_ENV: JSON.stringify({ RATE_LIMIT_MULTIPLIER: '100' }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // Function logs are kept to the last lines, printed when the start fails or with SHROUD_ASSETS_LOGS=1.
  let tail = '';
  child.stderr.on('data', (d: Buffer) => {
    if (process.env.SHROUD_ASSETS_LOGS === '1') process.stderr.write(d);
    tail = (tail + d).slice(-4000);
  });
  let banner = '';
  const url = await new Promise<string>((ok, fail) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        banner = out;
        process.stdout.write(out);
        ok(m[1]!);
      }
    });
    child.once('exit', (code) => fail(new Error(`start:assets exited (${code}) before it listened:\n${out}\n${tail}`)));
  });
  process.env.SHROUD_BASE_URL = url;
  Object.assign(process.env, sharedData(banner));
  return async () => {
    await new Promise<void>((done) => {
      if (child.exitCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    });
    rmSync(dataDir, { recursive: true, force: true });
  };
}

/**
 * The server's table and blocks bucket, from its banner, as the test workers' own configuration:
 * the helpers that act in-process (a session made without the identity routes, test/support/storage.ts;
 * a listing of the bucket) then read and write the data the asset server's functions use.
 */
function sharedData(banner: string): Record<string, string> {
  const table = /DynamoDB table (\S+) on (\S+)/.exec(banner);
  const buckets = /S3 buckets (.+) on (\S+)/.exec(banner);
  if (!table || !buckets) throw new Error(`start:assets did not name its table and buckets:\n${banner}`);
  const blocks = buckets[1]!.split(', ').find((b) => b.includes('-blocks-'));
  if (!blocks) throw new Error(`start:assets has no blocks bucket: ${buckets[1]}`);
  return { TABLE_NAME: table[1]!, DYNAMODB_ENDPOINT: table[2]!, BUCKET_NAME: blocks, S3_ENDPOINT: buckets[2]! };
}
