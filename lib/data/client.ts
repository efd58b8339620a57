import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config, dependencyClientSettings } from '#lib/config.ts';
import { captureClient } from '#lib/tracer.ts';

/** Built once per cold start and reused by every invocation of the function. */
export const dynamo = captureClient(
  new DynamoDBClient({
    region: config.AWS_REGION,
    // DynamoDB answers in milliseconds: five seconds of silence is a service in trouble.
    ...dependencyClientSettings(5_000),
    ...(config.DYNAMODB_ENDPOINT ? { endpoint: config.DYNAMODB_ENDPOINT, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  }),
);

export const db = DynamoDBDocumentClient.from(dynamo, {
  marshallOptions: { removeUndefinedValues: true },
});

export const tableName = config.TABLE_NAME;
