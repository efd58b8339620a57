/**
 * `npm run start:assets [-- --synth | --reuse] [--port N]`: the API served from the synthesized
 * assets (cdk/asset-mode.ts). `cdk.out` is synthesized again when any file under cdk/, functions/,
 * lib/ or circuits/artifacts/ is newer than its manifest (or with --synth); `--reuse` (or
 * SHROUD_ASSETS_REUSE=1, as CI sets it after its own synth) takes it as it is. Prints the stage,
 * the template and the URL; `listening on <url>` is the last line of the start.
 * SHROUD_ASSETS_FUNCTION_ENV (a JSON object) adds plain settings to every function, as the
 * `functionEnvironment` context would (the test run raises the rate limits with it).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { defaultDataDir, startAssetMode } from './asset-mode.ts';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const portArg = args[args.indexOf('--port') + 1];
const port = flag('--port') ? Number(portArg) : Number(process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port/PORT must be a port number, got ${portArg ?? process.env.PORT}`);
  process.exit(1);
}
const outdir = resolve(process.env.CDK_OUT ?? join(root, 'cdk.out'));

/** The newest modification time under `dir` (ms), skipping what a synth does not read. */
function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

const manifest = join(outdir, 'manifest.json');
const reuse = flag('--reuse') || process.env.SHROUD_ASSETS_REUSE === '1';
const sources = ['cdk', 'functions', 'lib', join('circuits', 'artifacts')].map((d) => join(root, d)).filter(existsSync);
const stale = !existsSync(manifest) || (!reuse && sources.some((d) => newest(d) > statSync(manifest).mtimeMs));
if (flag('--synth') || stale) {
  if (reuse && !existsSync(manifest)) console.error(`${relative(root, outdir)} has no assembly: synthesizing`);
  console.error(`synthesizing the rehearsal stage into ${relative(root, outdir)} (npm run synth -- -c rehearsal=true)…`);
  const r = spawnSync(process.execPath, [join(root, 'node_modules', 'aws-cdk', 'bin', 'cdk'), 'synth', '--quiet', '-c', 'rehearsal=true', '-o', outdir], {
    cwd: root,
    stdio: 'inherit',
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const functionEnvironment = JSON.parse(process.env.SHROUD_ASSETS_FUNCTION_ENV ?? '{}') as Record<string, string>;
const mode = await startAssetMode({
  outdir,
  port,
  functionEnvironment,
  dataDir: resolve(process.env.DATA_DIR ? join(process.env.DATA_DIR, 'assets') : defaultDataDir(root)),
});
console.log(`serving stage ${mode.stage} from ${relative(root, mode.template)} (${mode.functions} Node.js functions, each from its asset)`);
for (const line of mode.summary) console.log(`  ${line}`);
console.log(`listening on ${mode.url}`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    await mode.stop();
    process.exit(0);
  });
}
