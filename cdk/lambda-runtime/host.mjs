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
import { errorText, importHandler, lambdaContext } from './handler.mjs';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';

const [taskDir, handlerName] = process.argv.slice(2);
const init = importHandler(taskDir, handlerName);
// The init is not the invocation's: the parent starts an invocation's clock once this says ready.
init.then(
  () => process.send({ ready: true }),
  (e) => process.send({ ready: false, error: errorText(e) }),
);

process.on('message', async ({ id, event, timeoutMs }) => {
  try {
    const fn = await init;
    const context = lambdaContext(timeoutMs);
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
