import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createTableInput } from '#lib/data/table.ts';
import { dropTable } from '#lib/local/bootstrap.ts';

export type TestTable = Awaited<ReturnType<typeof startTable>>;

/**
 * Only a table, for a unit test of lib/data that needs nothing else: this file's table
 * (test/support/table-per-file.ts) on the run's shared DynamoDB Local
 * (test/support/shared-dynamo.ts), in milliseconds instead of a whole runtime's seconds (no HTTP
 * server, S3 servers, OAuth provider or replica worker; their modules are never loaded). Call it
 * before the first import of a `#lib` module that reads the configuration, and import those
 * dynamically after it. Expiry is decided by the items' `ttl` on read (lib/data/items.ts), so the
 * table's own TTL deletion is not turned on.
 */
export async function startTable(): Promise<{ stop(): Promise<void> }> {
  const endpoint = process.env.SHROUD_TEST_DYNAMODB_ENDPOINT;
  const tableName = process.env.TABLE_NAME;
  if (!endpoint || !tableName) throw new Error('no shared DynamoDB Local (run under vitest, with Java installed)');
  process.env.DYNAMODB_ENDPOINT = endpoint;
  // As startTestRuntime: the handlers' and repositories' logs stay quiet unless a test asks.
  process.env.POWERTOOLS_LOG_LEVEL ??= 'CRITICAL';
  const ddb = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  try {
    await ddb.send(new CreateTableCommand(createTableInput(tableName)));
  } finally {
    ddb.destroy();
  }
  return { stop: () => dropTable(endpoint, tableName) };
}
