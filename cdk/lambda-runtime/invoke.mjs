/**
 * `node invoke.mjs <task dir> <module>.<export>` with an event (JSON) on stdin: one init and one
 * invocation of a buffered (not streaming) handler as Lambda's Node.js runtime makes them, in this
 * process alone. Prints one JSON line last: `{"ok":true,"result":…}` or `{"ok":false,"error":…}`.
 */
import { errorText, importHandler, lambdaContext } from './handler.mjs';

const [taskDir, handler] = process.argv.slice(2);
let input = '';
for await (const chunk of process.stdin) input += chunk;
try {
  const fn = await importHandler(taskDir, handler);
  const context = lambdaContext(Number(process.env.SHROUD_SANDBOX_TIMEOUT_MS ?? 10_000));
  const result = await fn(JSON.parse(input), context);
  report({ ok: true, result }, 0);
} catch (e) {
  report({ ok: false, error: errorText(e, 3) }, 1);
}

/** The last line, then exit once it is written (a pipe is asynchronous: exit at once would cut a large answer). */
function report(outcome, code) {
  process.stdout.write(`\n${JSON.stringify(outcome)}\n`, () => process.exit(code));
}
