import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand, DynamoDBClient, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { createTableInput, table } from '#lib/data/table.ts';

/** A client of a DynamoDB Local (any keys do; these are the runtime's). */
export const localDynamoClient = (endpoint: string) =>
  new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

/** Creates the table (with TTL on) and the bucket when they are missing; leaves existing data alone. */
export async function bootstrap(opts: { dynamoEndpoint: string; s3Endpoint: string; tableName: string; bucketName: string }) {
  const ddb = localDynamoClient(opts.dynamoEndpoint);
  try {
    await ddb.send(new DescribeTableCommand({ TableName: opts.tableName }));
  } catch (e) {
    if ((e as Error).name !== 'ResourceNotFoundException') throw e;
    await ddb.send(new CreateTableCommand(createTableInput(opts.tableName)));
    await ddb.send(
      new UpdateTimeToLiveCommand({
        TableName: opts.tableName,
        TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true },
      }),
    );
  }
  ddb.destroy();

  const s3 = new S3Client({
    endpoint: opts.s3Endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  try {
    await s3.send(new HeadBucketCommand({ Bucket: opts.bucketName }));
  } catch {
    await s3.send(new CreateBucketCommand({ Bucket: opts.bucketName }));
  }
  s3.destroy();
}

/** Deletes the table if it is there (a test file's own table on the suite's shared DynamoDB Local). */
export async function dropTable(dynamoEndpoint: string, tableName: string): Promise<void> {
  const ddb = localDynamoClient(dynamoEndpoint);
  try {
    await ddb.send(new DeleteTableCommand({ TableName: tableName }));
  } catch (e) {
    if ((e as Error).name !== 'ResourceNotFoundException') throw e;
  } finally {
    ddb.destroy();
  }
}
