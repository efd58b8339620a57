/**
 * `npm run openapi`: writes the OpenAPI document (functions/docs/openapi.json) and the typed client's
 * operation table (lib/client/operations.generated.ts) from the route table and every handler's spec. `--check` writes nothing and exits 1 when the committed file differs
 * (CI can run it so); `--report` prints `{current, missing}` as JSON: whether the committed file is
 * what the code generates, and the routes without a declared 2xx schema (test/api/openapi.test.ts).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// Some handler modules read DATA_DIR (local keys, the local chain) when they load: a throw-away
// one, removed when this process exits (CI and test/api/openapi.test.ts run this every time).
if (!process.env.DATA_DIR) {
  const dataDir = mkdtempSync(join(tmpdir(), 'shroud-openapi-'));
  process.env.DATA_DIR = dataDir;
  process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
}
process.env.POWERTOOLS_LOG_LEVEL ??= 'CRITICAL';

const { routes } = await import('./routes.ts');
const { openApiDocument, routesWithoutSuccessSchema } = await import('#lib/openapi/document.ts');
const { operationsModule } = await import('#lib/openapi/typescript.ts');
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string; description: string };

const root = new URL('..', import.meta.url);
const entries = [];
for (const route of routes) {
  const mod = (await import(pathToFileURL(join(root.pathname, route.handler)).href)) as { handler: { spec: never } };
  entries.push({ route, spec: mod.handler.spec });
}
const doc = openApiDocument(entries, { title: 'Shroud API', version: pkg.version, description: pkg.description });
const text = `${JSON.stringify(doc, null, 2)}\n`;
export const DOCUMENT_FILE = join(root.pathname, 'functions/docs/openapi.json');
// The typed client's operation table, from the same rows and schemas.
const OPERATIONS_FILE = join(root.pathname, 'lib/client/operations.generated.ts');
const operations = operationsModule(entries);
const read = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};
const current = () => read(DOCUMENT_FILE) === text && read(OPERATIONS_FILE) === operations;

const mode = process.argv[2];
if (mode === '--report') {
  process.stdout.write(`${JSON.stringify({ current: current(), missing: routesWithoutSuccessSchema(entries) })}\n`);
} else if (mode === '--check') {
  if (!current()) {
    process.stderr.write(
      'functions/docs/openapi.json or lib/client/operations.generated.ts is not what the code generates: run `npm run openapi` and commit them\n',
    );
    process.exit(1);
  }
} else {
  writeFileSync(DOCUMENT_FILE, text);
  writeFileSync(OPERATIONS_FILE, operations);
  process.stdout.write(`wrote ${DOCUMENT_FILE} and ${OPERATIONS_FILE}: ${routes.length} routes\n`);
}
// Handler modules keep clients and timers alive (snarkjs workers, the local chain): done is done.
process.exit(0);
