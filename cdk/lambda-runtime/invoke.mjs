/**
 * `node invoke.mjs <task dir> <module>.<export>` with an event (JSON) on stdin: one init and one
 * invocation of a buffered (not streaming) handler as Lambda's Node.js runtime makes them, in this
 * process alone. Prints one JSON line last: `{"ok":true,"result":…}` or `{"ok":false,"error":…}`.
 */
import './awslambda.mjs';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [taskDir, handler] = process.argv.slice(2);
const dot = handler.lastIndexOf('.');
const [file, name] = [handler.slice(0, dot), handler.slice(dot + 1)];
let input = '';
for await (const chunk of process.stdin) input += chunk;
try {
  const path = ['.js', '.mjs', '.cjs'].map((ext) => join(taskDir, file + ext)).find((p) => existsSync(p));
  if (!path) throw new Error(`no ${file}.js, ${file}.mjs or ${file}.cjs in the asset`);
  const fn = (await import(pathToFileURL(path).href))[name];
  if (typeof fn !== 'function') throw new Error(`${file} exports no function ${name}`);
  const started = Date.now();
  const timeoutMs = Number(process.env.SHROUD_SANDBOX_TIMEOUT_MS ?? 10_000);
  const fnName = process.env.AWS_LAMBDA_FUNCTION_NAME;
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName: fnName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${process.env.AWS_REGION}:000000000000:function:${fnName}`,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: randomUUID(),
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    getRemainingTimeInMillis: () => Math.max(0, timeoutMs - (Date.now() - started)),
  };
  const result = await fn(JSON.parse(input), context);
  report({ ok: true, result }, 0);
} catch (e) {
  report(
    {
      ok: false,
      error: String(e?.stack ?? e)
        .split('\n')
        .slice(0, 3)
        .join(' | '),
    },
    1,
  );
}

/** The last line, then exit once it is written (a pipe is asynchronous: exit at once would cut a large answer). */
function report(outcome, code) {
  process.stdout.write(`\n${JSON.stringify(outcome)}\n`, () => process.exit(code));
}
