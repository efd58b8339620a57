/**
 * `node load.mjs <task dir> <module>.<export>`: imports a function's handler module as Lambda's
 * Node.js runtime would at an init (index.js, index.mjs or index.cjs in the task directory, with
 * the `awslambda` global in place) and checks that the export is a function. Prints one JSON line:
 * `{"ok":true,"ms":…,"streaming":…}` or `{"ok":false,"error":…}`; the exit code says the same.
 */
import './awslambda.mjs';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [taskDir, handler] = process.argv.slice(2);
const dot = handler.lastIndexOf('.');
const [file, name] = [handler.slice(0, dot), handler.slice(dot + 1)];
const started = performance.now();
try {
  const path = ['.js', '.mjs', '.cjs'].map((ext) => join(taskDir, file + ext)).find((p) => existsSync(p));
  if (!path) throw new Error(`no ${file}.js, ${file}.mjs or ${file}.cjs in the asset`);
  const mod = await import(pathToFileURL(path).href);
  const fn = mod[name];
  if (typeof fn !== 'function') throw new Error(`${file} exports no function ${name} (${typeof fn})`);
  const streaming = fn[Symbol.for('aws.lambda.runtime.handler.streaming')] === 'response';
  report({ ok: true, ms: Math.round(performance.now() - started), streaming }, 0);
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

/** The last line, then exit once it is written (exit at once may cut a write to a pipe). */
function report(outcome, code) {
  process.stdout.write(`\n${JSON.stringify(outcome)}\n`, () => process.exit(code));
}
