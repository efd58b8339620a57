/**
 * `npm run check:assets [-- <cdk.out>]`: loads every Node.js function of the synthesized stack as
 * the nodejs22.x runtime loads it (cdk/lambda-sandbox.ts: its asset directory alone, only
 * `@aws-sdk/*` resolvable, its layers at the sandbox's /opt, the template's environment with
 * references as placeholders) and reports each failure. Exit code 1 when any function fails.
 * Run `npm run synth` first.
 */
import { resolve } from 'node:path';
import { checkAssets } from './lambda-sandbox.ts';

const outdir = resolve(process.argv[2] ?? 'cdk.out');
const started = performance.now();
let done = 0;
const results = await checkAssets(outdir, {
  onResult: ({ fn, result }) => {
    done++;
    if (!result.ok) console.log(`FAIL ${fn.name} (${fn.stack.name}/${fn.logicalId}, ${fn.handler}): ${result.error}`);
    else if (process.env.VERBOSE) console.log(`ok   ${fn.name} ${result.ms} ms${result.streaming ? ' (streaming)' : ''}`);
    if (done % 25 === 0) console.error(`${done} loaded…`);
  },
});
const failed = results.filter((r) => !r.result.ok);
const slowest = results.filter((r) => r.result.ok).sort((a, b) => b.result.ms! - a.result.ms!)[0];
console.log(
  `${results.length} Node.js functions in ${outdir}: ${results.length - failed.length} loaded, ${failed.length} failed ` +
    `(${((performance.now() - started) / 1000).toFixed(1)} s${slowest ? `; slowest init ${slowest.fn.name} ${slowest.result.ms} ms` : ''})`,
);
process.exit(failed.length ? 1 : 0);
