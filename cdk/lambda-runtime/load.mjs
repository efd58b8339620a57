/**
 * `node load.mjs <task dir> <module>.<export>`: imports a function's handler module as Lambda's
 * Node.js runtime would at an init (index.js, index.mjs or index.cjs in the task directory, with
 * the `awslambda` global in place) and checks that the export is a function. Prints one JSON line:
 * `{"ok":true,"ms":…,"streaming":…}` or `{"ok":false,"error":…}`; the exit code says the same.
 */
import { errorText, importHandler } from './handler.mjs';

const [taskDir, handler] = process.argv.slice(2);
const started = performance.now();
try {
  const fn = await importHandler(taskDir, handler);
  const streaming = fn[Symbol.for('aws.lambda.runtime.handler.streaming')] === 'response';
  report({ ok: true, ms: Math.round(performance.now() - started), streaming }, 0);
} catch (e) {
  report({ ok: false, error: errorText(e, 3) }, 1);
}

/** The last line, then exit once it is written (exit at once may cut a write to a pipe). */
function report(outcome, code) {
  process.stdout.write(`\n${JSON.stringify(outcome)}\n`, () => process.exit(code));
}
