import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SynthesizedFunction } from '../../cdk/cloud-assembly.ts';
import { ApiFunction } from '../../cdk/constructs/api-function.ts';
import { build as esbuild } from 'esbuild';
import { bundling } from '../../cdk/bundling.ts';
import { removeTemporaryBuilds, writeFunctionAsset, writeGroupAsset } from '../../cdk/function-bundles.ts';
import { checkAssets, createSandbox, invokeInProcess, loadInProcess, runtimeEnvironment } from '../../cdk/lambda-sandbox.ts';
import { createTableInput } from '../../lib/data/table.ts';
import { dropTable, localDynamoClient } from '../../lib/local/bootstrap.ts';
import { testApp } from '../support/cdk.ts';

/**
 * The load check of cdk/check-assets.ts (every synthesized function imported as nodejs22.x imports
 * it), on a small cloud assembly written here, and the two functions it found broken in the real
 * one (the browser terminal's `/` and `/web/:asset`), bundled as cdk/function-bundles.ts ships them.
 */
const dirs: string[] = [];
afterAll(() => {
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  removeTemporaryBuilds();
});
const tmp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
const write = (dir: string, files: Record<string, string>) => {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
};
const fn = (name: string, handler: string, environment: Record<string, unknown>, code: string) => ({ name, handler, environment, code });

/** Root stack (a table, a layer) and one nested stack whose functions receive both as parameters. */
function assembly(functions: ReturnType<typeof fn>[]): string {
  const out = tmp('shroud-asm-');
  write(join(out, 'asset.layer'), { 'circuit.txt': 'from the layer' });
  const nested: Record<string, unknown> = {};
  for (const f of functions) {
    write(join(out, `asset.${f.name}`), { 'index.mjs': f.code });
    nested[f.name] = {
      Type: 'AWS::Lambda::Function',
      Properties: {
        FunctionName: `shroud-t-${f.name}`,
        Runtime: 'nodejs22.x',
        Handler: f.handler,
        Layers: [{ Ref: 'refLayer' }],
        Environment: { Variables: f.environment },
      },
      Metadata: { 'aws:asset:path': `asset.${f.name}`, 'aws:asset:property': 'Code' },
    };
  }
  nested.Python = {
    Type: 'AWS::Lambda::Function',
    Properties: { Runtime: 'python3.12', Handler: 'index.main' },
    Metadata: { 'aws:asset:path': 'asset.layer' },
  };
  writeFileSync(
    join(out, 'Nested.nested.template.json'),
    JSON.stringify({ Parameters: { refTable: { Type: 'String' }, refLayer: { Type: 'String' } }, Resources: nested }),
  );
  writeFileSync(
    join(out, 'Root.template.json'),
    JSON.stringify({
      Resources: {
        Table: { Type: 'AWS::DynamoDB::Table', Properties: { TableName: 'shroud-t' } },
        Layer: { Type: 'AWS::Lambda::LayerVersion', Properties: {}, Metadata: { 'aws:asset:path': 'asset.layer', 'aws:asset:property': 'Content' } },
        Nested: {
          Type: 'AWS::CloudFormation::Stack',
          Properties: { Parameters: { refTable: { Ref: 'Table' }, refLayer: { Ref: 'Layer' } } },
          Metadata: { 'aws:asset:path': 'Nested.nested.template.json' },
        },
      },
    }),
  );
  writeFileSync(
    join(out, 'manifest.json'),
    JSON.stringify({ version: '48.0.0', artifacts: { Root: { type: 'aws:cloudformation:stack', properties: { templateFile: 'Root.template.json' } } } }),
  );
  return out;
}

describe('the load check (npm run check:assets)', () => {
  it('loads each Node.js function from its asset alone: @aws-sdk resolves, other packages do not; the template environment resolved; the layer at /opt; the awslambda global', async () => {
    const out = assembly([
      fn(
        'good',
        'index.handler',
        {
          TABLE_NAME: { Ref: 'refTable' },
          CIRCUITS_DIR: '/opt',
          SECRET: '{{resolve:secretsmanager:arn:aws:secretsmanager:us-east-1:1:secret:x:SecretString:::}}',
          URL: { 'Fn::Join': ['', ['https://', { Ref: 'AWS::Region' }, '.example']] },
        },
        `import { S3Client } from '@aws-sdk/client-s3';
import { readFileSync } from 'node:fs';
if (typeof S3Client !== 'function') throw new Error('no SDK');
if (process.env.TABLE_NAME !== 'shroud-t') throw new Error('TABLE_NAME ' + process.env.TABLE_NAME);
if (process.env.SECRET.includes('{{')) throw new Error('unresolved secret');
if (process.env.URL !== 'https://us-east-1.example') throw new Error('URL ' + process.env.URL);
if (readFileSync(process.env.CIRCUITS_DIR + '/circuit.txt', 'utf8') !== 'from the layer') throw new Error('no layer');
export const handler = async () => ({ statusCode: 200 });`,
      ),
      fn('bare', 'index.handler', {}, `import * as z from 'zod';\nexport const handler = async () => z;`),
      fn('noexport', 'index.handler', {}, `export const other = 1;`),
      fn('stream', 'index.streamHandler', {}, `export const streamHandler = awslambda.streamifyResponse(async (e, stream) => stream.end());`),
    ]);
    const results = await checkAssets(out, { concurrency: 2 });
    const by = Object.fromEntries(results.map((r) => [r.fn.name, r.result]));
    expect(Object.keys(by).sort()).toEqual(['shroud-t-bare', 'shroud-t-good', 'shroud-t-noexport', 'shroud-t-stream']); // python3.12: not ours to load
    expect(by['shroud-t-good']).toMatchObject({ ok: true, streaming: false });
    expect(by['shroud-t-bare']).toMatchObject({ ok: false });
    expect(by['shroud-t-bare']!.error).toMatch(/Cannot find package 'zod'/);
    expect(by['shroud-t-noexport']).toMatchObject({ ok: false });
    expect(by['shroud-t-noexport']!.error).toMatch(/exports no function handler/);
    expect(by['shroud-t-stream']).toMatchObject({ ok: true, streaming: true });
  });
});

describe('the browser terminal functions as shipped', () => {
  const base = {
    stack: { name: 'Shroud-ci', file: '', template: {}, parameters: new Map() },
    runtime: 'nodejs22.x',
    handler: 'index.handler',
    layerDirs: [],
    timeoutSeconds: 10,
    memoryMb: 512,
    resource: { Type: 'AWS::Lambda::Function' },
  };
  // The suite's DynamoDB Local and this file's table (the routes' rate limits count there).
  const dynamo = process.env.SHROUD_TEST_DYNAMODB_ENDPOINT!;
  const environment = {
    STAGE: 'ci',
    TABLE_NAME: process.env.TABLE_NAME!,
    DYNAMODB_ENDPOINT: dynamo,
    BUCKET_NAME: 'shroud-ci-blocks-000000000000',
    PUBLIC_BASE_URL: 'https://d1.cloudfront.net',
    CORS_ORIGINS: '',
  };
  beforeAll(async () => {
    const ddb = localDynamoClient(dynamo);
    await ddb.send(new CreateTableCommand(createTableInput(environment.TABLE_NAME)));
    ddb.destroy();
  });
  afterAll(() => dropTable(dynamo, environment.TABLE_NAME));
  const get = (path: string, routeKey: string, pathParameters?: Record<string, string>) => ({
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'localhost', 'user-agent': 'test' },
    pathParameters,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'r-1',
      routeKey,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
  });
  const cases = [
    { entry: 'functions/docs/web-page.ts', event: get('/', 'GET /'), file: undefined },
    { entry: 'functions/docs/web-asset.ts', event: get('/web/terminal.js', 'GET /web/{asset}', { asset: 'terminal.js' }), file: 'terminal.js' },
    { entry: 'functions/docs/web-asset.ts', event: get('/web/xterm.css', 'GET /web/{asset}', { asset: 'xterm.css' }), file: 'xterm.css' },
  ];

  it.each(cases)(
    '$entry loads from its asset alone and answers $event.rawPath (it once required the buffer package at load)',
    async ({ entry, event, file }) => {
      const assetDir = tmp('shroud-asset-');
      writeFunctionAsset(entry, assetDir, { alone: true });
      const f: SynthesizedFunction = { ...base, logicalId: 'Web', name: entry, assetDir, environment };
      const sandbox = createSandbox();
      try {
        const placed = sandbox.place(f, 0);
        const env = runtimeEnvironment(f, environment, placed);
        expect(await loadInProcess(f, env, placed.taskDir)).toMatchObject({ ok: true });
        const answer = await invokeInProcess(f, env, placed.taskDir, event);
        expect(answer.error).toBeUndefined();
        const result = answer.result as { statusCode: number; body: string; isBase64Encoded?: boolean; headers: Record<string, string> };
        expect(result.statusCode).toBe(200);
        const body = Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
        if (!file) expect(body.toString()).toContain('<div id="terminal">');
        // Served from the prebuilt file beside the bundle: no esbuild, no node_modules on Lambda.
        else expect(body.equals(readFileSync(join(assetDir, file)))).toBe(true);
      } finally {
        sandbox.remove();
      }
    },
    180_000,
  );
});

describe("a route group's shared asset", () => {
  it('holds each entry of the group as its own module beside the chunks they load, and each loads from it by its handler', async () => {
    const dir = tmp('shroud-group-');
    writeGroupAsset('functions/bug-reports', dir);
    const files = readdirSync(dir);
    expect(files.filter((f) => !f.startsWith('chunk-')).sort()).toEqual(['create.mjs', 'list.mjs']);
    expect(files.every((f) => /^(create|list|chunk-[A-Z0-9]+)\.mjs$/.test(f))).toBe(true);
    const sandbox = createSandbox();
    try {
      for (const [i, handler] of ['create.handler', 'list.handler'].entries()) {
        const f: SynthesizedFunction = {
          stack: { name: 'Shroud-ci', file: '', template: {}, parameters: new Map() },
          logicalId: 'F',
          name: handler,
          runtime: 'nodejs22.x',
          handler,
          layerDirs: [],
          timeoutSeconds: 10,
          memoryMb: 512,
          resource: { Type: 'AWS::Lambda::Function' },
          assetDir: dir,
          environment: {},
        };
        const placed = sandbox.place(f, i);
        expect(await loadInProcess(f, runtimeEnvironment(f, { STAGE: 'ci' }, placed), placed.taskDir)).toMatchObject({ ok: true });
      }
    } finally {
      sandbox.remove();
    }
  }, 300_000);
});

describe('what a cold start reads', () => {
  // The modules a function's output imports statically (what its init parses), as the one split
  // build of cdk/function-bundles.ts makes them; `await import()` targets are left for first use.
  const staticInputs = async (entries: string[], entry: string) => {
    const { metafile } = await esbuild({
      absWorkingDir: join(import.meta.dirname, '..', '..'),
      entryPoints: entries,
      outdir: tmp('shroud-split-'),
      bundle: true,
      splitting: true,
      format: bundling.format,
      platform: bundling.platform,
      target: bundling.target,
      mainFields: bundling.mainFields,
      external: bundling.external,
      metafile: true,
      write: false,
      logLevel: 'silent',
    });
    const outputs = metafile.outputs;
    const start = Object.keys(outputs).find((o) => outputs[o]!.entryPoint === entry)!;
    const seen = new Set([start]);
    const visit = (o: string) => {
      for (const i of outputs[o]!.imports) {
        if (i.kind !== 'import-statement' || i.external || seen.has(i.path)) continue;
        seen.add(i.path);
        visit(i.path);
      }
    };
    visit(start);
    return [...seen].flatMap((o) => Object.keys(outputs[o]!.inputs));
  };

  it('imports no proving or curve library (snarkjs, circomlibjs) at init, where the function only checks a proof schema or a Merkle root', async () => {
    const entries = ['functions/auth/session.ts', 'functions/swap/pairs.ts', 'functions/zk-toolkit/hash-poseidon.ts'];
    for (const entry of entries) {
      const inputs = await staticInputs(entries, entry);
      expect(inputs.some((i) => i.startsWith('lib/'))).toBe(true);
      expect(inputs.filter((i) => /node_modules\/(snarkjs|circomlibjs)\//.test(i))).toEqual([]);
    }
  }, 120_000);

  it("imports no Solana token or Light library at init where the route only reads DynamoDB (the bridge's history, status, cancel)", async () => {
    const entries = ['functions/bridge/history.ts', 'functions/bridge/status.ts', 'functions/bridge/cancel.ts'];
    for (const entry of entries) {
      const inputs = await staticInputs(entries, entry);
      // lib/bridge/bridge.ts holds the deposit's and the withdrawal's code too, loaded with their first request.
      expect(inputs).toContain('lib/bridge/bridge.ts');
      expect(inputs.filter((i) => /node_modules\/(@solana\/spl-token|@lightprotocol)\//.test(i))).toEqual([]);
    }
  }, 120_000);

  it('imports no SPL token library at init where the route moves or reads only the native coin (compress-native, decompress-native, the compressed balance)', async () => {
    const entries = ['functions/compression/compress-native.ts', 'functions/compression/decompress-native.ts', 'functions/compression/compressed-balance.ts'];
    for (const entry of entries) {
      const inputs = await staticInputs(entries, entry);
      // Light's stateless.js signs the native moves; compressed-token and spl-token only the token routes (first request).
      expect(inputs.some((i) => i.includes('node_modules/@lightprotocol/stateless.js/'))).toBe(true);
      expect(inputs.filter((i) => /node_modules\/(@solana\/spl-token|@lightprotocol\/compressed-token)\//.test(i))).toEqual([]);
    }
  }, 120_000);

  it('imports no chain A library at init where the swap route only reads its orders (orders, an order, the one-time addresses)', async () => {
    const entries = ['functions/swap/orders.ts', 'functions/swap/order.ts', 'functions/swap/addresses.ts'];
    for (const entry of entries) {
      const inputs = await staticInputs(entries, entry);
      expect(inputs.some((i) => i.startsWith('lib/swap/'))).toBe(true);
      expect(inputs.filter((i) => /node_modules\/(@solana\/(spl-token|web3\.js)|@lightprotocol)\//.test(i))).toEqual([]);
    }
  }, 120_000);

  it("imports no chain A library at init where the shielded pools' route only reads DynamoDB (the deposits, a payout job, a nullifier)", async () => {
    const entries = ['functions/transfer/deposits.ts', 'functions/transfer/job.ts', 'functions/transfer/nullifier.ts'];
    for (const entry of entries) {
      const inputs = await staticInputs(entries, entry);
      expect(inputs.some((i) => i.startsWith('lib/transfer/'))).toBe(true);
      expect(inputs.filter((i) => /node_modules\/(@solana\/(spl-token|web3\.js)|@lightprotocol)\//.test(i))).toEqual([]);
    }
  }, 120_000);

  it('imports no chain library at init in the bridge relayer: a pass with nothing open reads DynamoDB only', async () => {
    const entry = 'functions/scheduled/bridge-relayer.ts';
    const inputs = await staticInputs([entry], entry);
    expect(inputs).toContain('lib/bridge/relayer.ts');
    expect(inputs).not.toContain('lib/bridge/relay-steps.ts');
    expect(inputs.filter((i) => /node_modules\/(@solana\/(spl-token|web3\.js)|@lightprotocol|starknet|viem|ethers|snarkjs|circomlibjs)\//.test(i))).toEqual([]);
  }, 120_000);
});

describe('source maps only when asked (-c sourceMaps=true)', () => {
  it("ships no source map by default, and each module's map (index.mjs's named for it) when asked", () => {
    const plain = tmp('shroud-asset-');
    writeFunctionAsset('functions/fallback.ts', plain, { alone: true });
    // Beside index.mjs, the chunks it loads (a built-in's dynamic import is a small chunk of its own: cdk/bundle-patches.ts).
    const files = readdirSync(plain);
    expect(files).toContain('index.mjs');
    expect(files.filter((f) => !/^(index|chunk-[A-Z0-9]+)\.mjs$/.test(f))).toEqual([]);
    for (const f of files) expect(readFileSync(join(plain, f), 'utf8')).not.toContain('sourceMappingURL');
    const mapped = tmp('shroud-asset-');
    writeFunctionAsset('functions/fallback.ts', mapped, { alone: true, sourcemap: true });
    const mappedFiles = readdirSync(mapped);
    const modules = mappedFiles.filter((f) => f.endsWith('.mjs'));
    expect(modules.length).toBe(files.length);
    expect(mappedFiles.sort()).toEqual(modules.flatMap((f) => [f, `${f}.map`]).sort());
    expect(readFileSync(join(mapped, 'index.mjs'), 'utf8').trimEnd().endsWith('//# sourceMappingURL=index.mjs.map')).toBe(true);
  }, 60_000);

  it('sets NODE_OPTIONS=--enable-source-maps only on functions that ship maps', () => {
    const nodeOptions = (context: Record<string, unknown>) => {
      const app = testApp({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
      const stack = new Stack(app, 'S');
      const role = new Role(stack, 'R', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
      new ApiFunction(stack, 'F', { stage: 'ci', entry: 'functions/fallback.ts', name: 'f', profile: 'standard', role, environment: {} });
      const fns = Template.fromStack(stack).findResources('AWS::Lambda::Function');
      return (Object.values(fns)[0] as { Properties: { Environment: { Variables: Record<string, string> } } }).Properties.Environment.Variables.NODE_OPTIONS;
    };
    expect(nodeOptions({})).toBeUndefined();
    expect(nodeOptions({ sourceMaps: 'true' })).toBe('--enable-source-maps');
  });
});
