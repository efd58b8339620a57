/**
 * `node host.mjs <task dir> <module>.<export>`, with an IPC channel: one warm Lambda instance of a
 * function, as Lambda's Node.js runtime keeps it — the handler imported once (the init), then one
 * invocation at a time from the parent (cdk/asset-host.ts): `{id, event, timeoutMs}` in;
 * `{id, ok, result}` or `{id, ok: false, error}` back for a buffered handler; for a handler marked
 * by `awslambda.streamifyResponse`, the response stream's bytes as `{id, chunk}` (base64) and then
 * `{id, ok, end: true}`. Plain JavaScript: it runs in the sandbox, where only Node's and the
 * runtime's modules resolve.
 */
import { STREAMING_MARK } from './awslambda.mjs';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';

const [taskDir, handlerName] = process.argv.slice(2);
const dot = handlerName.lastIndexOf('.');
const [file, name] = [handlerName.slice(0, dot), handlerName.slice(dot + 1)];

const errorText = (e) =>
  String(e?.stack ?? e)
    .split('\n')
    .slice(0, 4)
    .join(' | ');

const init = (async () => {
  const path = ['.js', '.mjs', '.cjs'].map((ext) => join(taskDir, file + ext)).find((p) => existsSync(p));
  if (!path) throw new Error(`no ${file}.js, ${file}.mjs or ${file}.cjs in the asset`);
  const fn = (await import(pathToFileURL(path).href))[name];
  if (typeof fn !== 'function') throw new Error(`${file} exports no function ${name}`);
  return fn;
})();
// The init is not the invocation's: the parent starts an invocation's clock once this says ready.
init.then(
  () => process.send({ ready: true }),
  (e) => process.send({ ready: false, error: errorText(e) }),
);

const contextFor = (timeoutMs) => {
  const started = Date.now();
  const fnName = process.env.AWS_LAMBDA_FUNCTION_NAME;
  return {
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
};

process.on('message', async ({ id, event, timeoutMs }) => {
  try {
    const fn = await init;
    const context = contextFor(timeoutMs);
    // What the runtime sets for each invocation of an actively traced function (not sampled here: nothing is sent).
    process.env._X_AMZN_TRACE_ID = `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replace(/-/g, '').slice(0, 24)};Parent=${randomUUID().replace(/-/g, '').slice(0, 16)};Sampled=0;Lineage=local`;
    if (fn[STREAMING_MARK] === 'response') {
      // The runtime's response stream: bytes go to the parent as they are written.
      const stream = new Writable({
        write(chunk, _enc, done) {
          process.send({ id, chunk: Buffer.from(chunk).toString('base64') }, undefined, undefined, () => done());
        },
      });
      stream.setContentType = () => {};
      const ended = new Promise((ok) => stream.once('finish', ok));
      await fn(event, stream, context);
      await ended;
      process.send({ id, ok: true, end: true });
    } else {
      process.send({ id, ok: true, result: await fn(event, context) });
    }
  } catch (e) {
    process.send({ id, ok: false, error: errorText(e) });
  }
});
