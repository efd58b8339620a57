import { build, type Metafile } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { esbuildOptions } from '../../cdk/bundling.ts';
import { routes } from '../../functions/routes.ts';
import { startTestRuntime } from '../support/runtime.ts';

/**
 * `bench coldstart`: every function of the route table bundled as deployed (cdk/bundling.ts),
 * then per function, in fresh Node processes: the time to import its bundle (median of 3) and
 * its first invocation (import excluded) with a sample event against DynamoDB Local and the
 * local S3. Sorted by bundle size, each with the packages that weigh most in it (esbuild's
 * metafile). Aims (issue 10): plain functions ≤ 300 KB and ≤ 100 ms to import.
 *
 * Import times: wall and CPU time of a cold import, and the CPU time with the (external) AWS SDK
 * clients loaded first — the bundle's own share; loading the SDK itself is about 100–150 ms of
 * CPU here, whatever the function.
 */
const repo = join(import.meta.dirname, '..', '..');
const out = join(repo, '.bench', 'bundles');
/** The runtime's copy of the SDK clients (the bundles carry their own since cdk/bundling.ts bundles the SDK): the bundle's share is measured after them. */
const SDK = ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/client-s3'];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const BASE8 = {
  x: '5299619240641551281634865583518297030282874472190772894086521144482721001553',
  y: '16950150798460657717958625567821834550301663161624707787222815936182638968203',
};
/** Bodies that the toolkit routes accept, so that their first call does the real work. */
const samples: Record<string, unknown> = {
  '/api/zk-toolkit/hash/poseidon': { inputs: ['1', '2'] },
  '/api/zk-toolkit/hash/mimc': { input: '1' },
  '/api/zk-toolkit/hash/pedersen': { input: 'hello' },
  '/api/zk-toolkit/field/add': { a: '3', b: '2' },
  '/api/zk-toolkit/field/sub': { a: '3', b: '2' },
  '/api/zk-toolkit/field/mul': { a: '3', b: '2' },
  '/api/zk-toolkit/field/div': { a: '3', b: '2' },
  '/api/zk-toolkit/field/inv': { a: '4' },
  '/api/zk-toolkit/field/sqrt': { a: '4' },
  '/api/zk-toolkit/field/pow': { base: '2', exp: '3' },
  '/api/zk-toolkit/ec/mulbase': { scalar: '5' },
  '/api/zk-toolkit/ec/add': { p1: BASE8, p2: BASE8 },
  '/api/zk-toolkit/ec/mul': { point: BASE8, scalar: '3' },
  '/api/zk-toolkit/ec/isoncurve': BASE8,
  '/api/zk-toolkit/shamir/split': { secret: '7', threshold: 2, shares: 3 },
};

function sampleEvent(method: string, path: string) {
  const rawPath = path.replace(/:[A-Za-z_]+/g, 'x');
  const body = method === 'POST' ? JSON.stringify(samples[path] ?? {}) : undefined;
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath,
    rawQueryString: '',
    headers: body ? { 'content-type': 'application/json' } : {},
    body,
    isBase64Encoded: false,
    pathParameters: path.includes(':') ? Object.fromEntries([...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => [m[1], 'x'])) : undefined,
    requestContext: { requestId: 'coldstart', http: { method, path: rawPath, sourceIp: '127.0.0.3' } },
  };
}

/** Output bytes per package (or per repository folder) of a bundle, largest first. */
function weights(meta: Metafile): [string, number][] {
  const by = new Map<string, number>();
  for (const o of Object.values(meta.outputs)) {
    for (const [file, v] of Object.entries(o.inputs)) {
      const pkg = file.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1] ?? file.split('/').slice(0, 2).join('/');
      by.set(pkg, (by.get(pkg) ?? 0) + v.bytesInOutput);
    }
  }
  return [...by].sort((a, b) => b[1] - a[1]);
}

function inFreshProcess(script: string): string {
  const p = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'CRITICAL' },
    timeout: 120_000,
  });
  return p.stdout.trim().split('\n').pop() ?? '';
}

interface Row {
  name: string;
  profile: string;
  kb: number;
  importMs: number;
  /** CPU time of the import: less at the mercy of what else the machine runs than the wall time. */
  importCpuMs: number;
  /** CPU time of the import with the AWS SDK clients loaded before: the bundle's own cost. */
  ownCpuMs: number;
  invokeMs: number;
  status: string;
  top: string;
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
// DynamoDB Local and the local S3 for the first invocations; the children inherit their endpoints.
const rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '1000' });
const rows: Row[] = [];
try {
  const entries = [
    ...routes.map((r) => ({ name: `${r.method} ${r.path}`, method: r.method, path: r.path, file: r.handler, profile: r.profile ?? 'plain' })),
    { name: '$default (fallback)', method: 'GET', path: '/nowhere', file: 'functions/fallback.ts', profile: 'plain' },
  ];
  for (const [i, e] of entries.entries()) {
    const outfile = join(out, `fn${i}.mjs`);
    const built = await build({ ...esbuildOptions(join(repo, e.file), outfile), metafile: true }).catch((err: Error) => err);
    if (built instanceof Error) {
      console.log(`  build failed: ${e.name}: ${built.message.split('\n')[1] ?? built.message}`);
      continue;
    }
    const imports: number[] = [];
    const importCpu: number[] = [];
    const own: number[] = [];
    for (let k = 0; k < 3; k++) {
      const [wall, cpu] = inFreshProcess(
        `const c=process.cpuUsage();const t=performance.now();await import(${JSON.stringify(outfile)});` +
          `const u=process.cpuUsage(c);console.log(performance.now()-t,(u.user+u.system)/1000);process.exit(0)`,
      )
        .split(' ')
        .map(Number);
      imports.push(wall!);
      importCpu.push(cpu!);
      // The same import with the AWS SDK clients already loaded: what the bundle itself costs.
      own.push(
        Number(
          inFreshProcess(
            `${SDK.map((m) => `await import('${m}');`).join('')}const c=process.cpuUsage();await import(${JSON.stringify(outfile)});` +
              `const u=process.cpuUsage(c);console.log((u.user+u.system)/1000);process.exit(0)`,
          ),
        ),
      );
    }
    const first = inFreshProcess(
      `const m=await import(${JSON.stringify(outfile)});const t=performance.now();` +
        `const r=await m.handler(${JSON.stringify(sampleEvent(e.method, e.path))},{awsRequestId:'coldstart',getRemainingTimeInMillis:()=>30000});` +
        `console.log(JSON.stringify({ms:performance.now()-t,status:r.statusCode}));process.exit(0)`,
    );
    const invoked = (() => {
      try {
        return JSON.parse(first) as { ms: number; status: number };
      } catch {
        return { ms: NaN, status: 'crash' };
      }
    })();
    const top = weights(built.metafile)
      .slice(0, 3)
      .map(([k, v]) => `${k} ${(v / 1024).toFixed(0)}`)
      .join(', ');
    rows.push({
      name: e.name,
      profile: e.profile,
      kb: statSync(outfile).size / 1024,
      importMs: median(imports),
      importCpuMs: median(importCpu),
      ownCpuMs: median(own),
      invokeMs: invoked.ms,
      status: String(invoked.status),
      top,
    });
  }
} finally {
  await rt.stop();
  rmSync(join(repo, '.bench'), { recursive: true, force: true });
}

rows.sort((a, b) => b.kb - a.kb);
console.log('every function, bundled as deployed; import and first invocation each in a fresh Node process');
console.log('(first invocation: import excluded; a sample body where the route has one, else {} → its 4xx)\n');
console.log(
  `load average: ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')} on ${navigator.hardwareConcurrency} cores (wall times grow with it; CPU times much less)\n`,
);
console.log(
  `${'size KB'.padStart(8)} ${'import ms'.padStart(10)} ${'(CPU ms)'.padStart(9)} ${'w/o SDK'.padStart(8)} ${'1st call ms'.padStart(12)} status  profile  route  — largest parts (KB)`,
);
for (const r of rows) {
  console.log(
    `${r.kb.toFixed(0).padStart(8)} ${r.importMs.toFixed(0).padStart(10)} ${r.importCpuMs.toFixed(0).padStart(9)} ${r.ownCpuMs.toFixed(0).padStart(8)} ${r.invokeMs.toFixed(0).padStart(12)} ${r.status.padStart(6)}  ${r.profile.padEnd(7)}  ${r.name}  — ${r.top}`,
  );
}
const plain = rows.filter((r) => r.profile === 'plain');
const overSize = plain.filter((r) => r.kb > 300).length;
const overTime = plain.filter((r) => r.importMs > 100).length;
const overCpu = plain.filter((r) => r.importCpuMs > 100).length;
const overOwn = plain.filter((r) => r.ownCpuMs > 100).length;
console.log(
  `\nplain functions: ${plain.length}; over 300 KB: ${overSize}; over 100 ms to import: ${overTime} (wall), ${overCpu} (CPU), ${overOwn} (CPU, the AWS SDK loaded before)`,
);
console.log(`largest: ${rows[0]?.name} (${rows[0]?.kb.toFixed(0)} KB); largest plain: ${plain[0]?.name} (${plain[0]?.kb.toFixed(0)} KB)`);
