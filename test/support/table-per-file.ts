import { randomBytes } from 'node:crypto';
import { installEmbeddedAdapters } from '#lib/local/adapters.ts';

/**
 * vitest's setupFiles, run in the worker before each test file's own imports: the file's table
 * name on the run's shared DynamoDB Local (test/support/shared-dynamo.ts), set before any
 * `#lib` module reads its configuration. Unique per file, so files on both workers never meet.
 */
process.env.TABLE_NAME = `shroud-test-${randomBytes(6).toString('hex')}`;

// The emulators behind the chain ports, as the embedded runtime installs them (lib/local/adapters.ts;
// installing loads none of them, so no module reads its configuration here).
installEmbeddedAdapters();
