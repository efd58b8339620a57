/**
 * The single table, defined once: the CDK stack and the local bootstrap both build it from this
 * description, so the two can never drift apart.
 *
 * Keys: `pk`/`sk` strings; one global secondary index `gsi1` (`gsi1pk`/`gsi1sk`) for the
 * second access path of an entity (e.g. files by CID, users by provider subject). `ttl` holds
 * epoch seconds; DynamoDB deletes lazily, so every read also filters on it (see items.ts).
 */
export const table = {
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'ttl',
  indexes: [{ name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' }],
} as const;

/** The CreateTable input for DynamoDB Local (and any environment created without CDK). */
export function createTableInput(tableName: string) {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: [
      { AttributeName: table.partitionKey, AttributeType: 'S' as const },
      { AttributeName: table.sortKey, AttributeType: 'S' as const },
      ...table.indexes.flatMap((i) => [
        { AttributeName: i.partitionKey, AttributeType: 'S' as const },
        { AttributeName: i.sortKey, AttributeType: 'S' as const },
      ]),
    ],
    KeySchema: [
      { AttributeName: table.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: table.sortKey, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: table.indexes.map((i) => ({
      IndexName: i.name,
      KeySchema: [
        { AttributeName: i.partitionKey, KeyType: 'HASH' as const },
        { AttributeName: i.sortKey, KeyType: 'RANGE' as const },
      ],
      Projection: { ProjectionType: 'ALL' as const },
    })),
  };
}
