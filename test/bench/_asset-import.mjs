/**
 * `node _asset-import.mjs <task dir> <module>.<export>`: one cold import of a function's asset, as
 * cdk/lambda-runtime/load.mjs does it (the `awslambda` global first, then index.mjs), printing
 * `{"ms":…,"cpuMs":…}`: wall time and the process's CPU time of the import (steadier on a shared
 * machine). For test/bench/cold-assets.ts; plain JavaScript, run inside the sandbox.
 */
import '../../cdk/lambda-runtime/awslambda.mjs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [taskDir, handler] = process.argv.slice(2);
const file = handler.slice(0, handler.lastIndexOf('.'));
const cpu = process.cpuUsage();
const started = performance.now();
await import(pathToFileURL(join(taskDir, `${file}.mjs`)).href);
const ms = performance.now() - started;
const used = process.cpuUsage(cpu);
process.stdout.write(`${JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000 })}\n`, () => process.exit(0));
