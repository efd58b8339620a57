/**
 * The synthesized stack's resources made on this machine's services, and a Resolver that gives
 * the templates' references their local values (cdk/cloud-assembly.ts): the table on DynamoDB
 * Local, every bucket on the local S3, and on Moto (lib/local/moto.ts) every KMS key, SQS queue
 * (with its redrive policy, dead-letter queues first) and Secrets Manager secret (its generated
 * string). Account 000000000000, us-east-1; the API's and the distribution's addresses are the
 * local gateway's.
 */
import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { randomBytes } from 'node:crypto';
import { bootstrap } from '../lib/local/bootstrap.ts';
import { ensureLocalBucket } from '../lib/local/s3-local.ts';
import { namedResource, pseudoParameter, REGION, resolveValue, type Resolver, type ResourceRef, type Scope } from './cloud-assembly.ts';

export { ACCOUNT, REGION } from './cloud-assembly.ts';
/** Moto accepts any keys; these mark the requests as the asset mode's. */
export const MOTO_CREDENTIALS = { accessKeyId: 'AKIDLOCALASSETS', secretAccessKey: 'local-assets' };

export interface LocalEndpoints {
  dynamo: string;
  s3: string;
  moto: string;
  /** The gateway's base URL (http://localhost:<port>). */
  url: string;
}

export interface LocalQueue {
  url: string;
  arn: string;
  name: string;
}

export interface LocalAws {
  resolver: Resolver;
  queues: Map<string, LocalQueue>;
  /** What was made, for the start banner. */
  summary: string[];
}

const keyOf = (stack: Scope, logicalId: string) => `${stack.name}/${logicalId}`;

export async function createLocalAws(scopes: Scope[], at: LocalEndpoints): Promise<LocalAws> {
  const aws = { region: REGION, endpoint: at.moto, credentials: MOTO_CREDENTIALS };
  const kms = new KMSClient(aws);
  const sqs = new SQSClient(aws);
  const secrets = new SecretsManagerClient(aws);
  const keys = new Map<string, { id: string; arn: string }>();
  const queues = new Map<string, LocalQueue>();
  const secretValues = new Map<string, { arn: string; value: string }>();
  const summary: string[] = [];

  const resolver: Resolver = {
    pseudo: (name, stack) => (name === 'AWS::NoValue' ? '' : pseudoParameter(name, stack, `${name}-local`)),
    dynamicReference(ref) {
      // {{resolve:secretsmanager:<arn or name>:SecretString:<json key>:<stage>:<version>}}
      const m = /^\{\{resolve:secretsmanager:(arn:[^:]+:secretsmanager:[^:]+:\d+:secret:[^:]+|[^:]+):SecretString:([^:]*):/.exec(ref);
      const secret = m && [...secretValues.values()].find((s) => s.arn === m[1] || s.arn.split(':secret:')[1] === m[1]);
      if (!m || !secret) throw new Error(`${ref}: only the stack's own secrets are on Moto (a secretName from context is not)`);
      return m[2] ? String((JSON.parse(secret.value) as Record<string, unknown>)[m[2]]) : secret.value;
    },
    resource(ref: ResourceRef) {
      const named = namedResource(ref, resolver);
      if (named !== undefined) return named;
      const { stack, logicalId, resource, attribute } = ref;
      const made = keyOf(stack, logicalId);
      switch (resource.Type) {
        case 'AWS::KMS::Key': {
          const k = keys.get(made);
          if (!k) throw new Error(`${made}: the key was not made on Moto`);
          return attribute === 'Arn' ? k.arn : k.id;
        }
        case 'AWS::SQS::Queue': {
          const q = queues.get(made);
          if (!q) throw new Error(`${made}: the queue was not made on Moto`);
          return attribute === 'Arn' ? q.arn : attribute === 'QueueName' ? q.name : q.url;
        }
        case 'AWS::SecretsManager::Secret': {
          const s = secretValues.get(made);
          if (!s) throw new Error(`${made}: the secret was not made on Moto`);
          return s.arn;
        }
        case 'AWS::CloudFront::Distribution':
          // The distribution's https://<domain> becomes the gateway's URL (fixed in `localUrls`).
          return attribute === 'DomainName' ? `${LOCAL_DISTRIBUTION}` : 'ELOCALDISTRIBUTION';
        case 'AWS::ApiGatewayV2::Api':
          return attribute === 'ApiEndpoint' ? at.url : 'localapi';
        default:
          return attribute ? `${logicalId}-${attribute}-local` : `${logicalId}-local`;
      }
    },
  };

  // What the templates declare, in the order that lets each reference the ones before.
  const all = scopes.flatMap((stack) => Object.entries(stack.template.Resources ?? {}).map(([logicalId, resource]) => ({ stack, logicalId, resource })));
  for (const { stack, logicalId } of all.filter((r) => r.resource.Type === 'AWS::KMS::Key')) {
    const made = await kms.send(new CreateKeyCommand({ Description: `${keyOf(stack, logicalId)} (asset mode)` }));
    keys.set(keyOf(stack, logicalId), { id: made.KeyMetadata!.KeyId!, arn: made.KeyMetadata!.Arn! });
    summary.push(`KMS key ${logicalId}: ${made.KeyMetadata!.Arn}`);
  }
  for (const { stack, logicalId, resource } of all.filter((r) => r.resource.Type === 'AWS::SecretsManager::Secret')) {
    const gen = resource.Properties?.GenerateSecretString as { PasswordLength?: number } | undefined;
    const value = randomBytes(48)
      .toString('base64url')
      .replace(/[-_]/g, '')
      .slice(0, gen?.PasswordLength ?? 32);
    const made = await secrets.send(new CreateSecretCommand({ Name: `${stack.name.replace(/\//g, '-')}-${logicalId}`, SecretString: value }));
    secretValues.set(keyOf(stack, logicalId), { arn: made.ARN!, value });
    summary.push(`secret ${logicalId}: ${made.ARN}`);
  }
  const queueRows = all.filter((r) => r.resource.Type === 'AWS::SQS::Queue');
  // Dead-letter queues first: a redrive policy names its queue's ARN.
  queueRows.sort((a, b) => Number(!!a.resource.Properties?.RedrivePolicy) - Number(!!b.resource.Properties?.RedrivePolicy));
  for (const { stack, logicalId, resource } of queueRows) {
    const p = resource.Properties ?? {};
    const name = p.QueueName === undefined ? logicalId : resolveValue(p.QueueName, stack, resolver);
    const attributes: Record<string, string> = {};
    if (p.VisibilityTimeout !== undefined) attributes.VisibilityTimeout = String(p.VisibilityTimeout);
    if (p.MessageRetentionPeriod !== undefined) attributes.MessageRetentionPeriod = String(p.MessageRetentionPeriod);
    if (p.RedrivePolicy) {
      const r = p.RedrivePolicy as { deadLetterTargetArn: unknown; maxReceiveCount: unknown };
      attributes.RedrivePolicy = JSON.stringify({
        deadLetterTargetArn: resolveValue(r.deadLetterTargetArn, stack, resolver),
        maxReceiveCount: Number(r.maxReceiveCount),
      });
    }
    const made = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
    const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: made.QueueUrl!, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
    queues.set(keyOf(stack, logicalId), { url: made.QueueUrl!, arn, name });
    summary.push(`SQS queue ${name}${attributes.RedrivePolicy ? ` (redrive: ${attributes.RedrivePolicy})` : ''}`);
  }
  // The table (with its indexes and TTL, from the schema the template was made from) and every bucket.
  const tables = all.filter((r) => r.resource.Type === 'AWS::DynamoDB::Table').map((r) => resolver.resource(r));
  const buckets = all.filter((r) => r.resource.Type === 'AWS::S3::Bucket').map((r) => resolver.resource(r));
  for (const table of tables) await bootstrap({ dynamoEndpoint: at.dynamo, s3Endpoint: at.s3, tableName: table, bucketName: buckets[0]! });
  for (const bucket of buckets) await ensureLocalBucket(at.s3, bucket);
  summary.push(`DynamoDB table ${tables.join(', ')} on ${at.dynamo}`, `S3 buckets ${buckets.join(', ')} on ${at.s3}`);
  for (const c of [kms, sqs, secrets]) c.destroy();
  return { resolver, queues, summary };
}

const LOCAL_DISTRIBUTION = 'local-distribution.invalid';

/** A resolved value with the distribution's https address made the gateway's. */
export const localUrls = (value: string, url: string): string =>
  value.replaceAll(`https://${LOCAL_DISTRIBUTION}`, url).replaceAll(LOCAL_DISTRIBUTION, new URL(url).host);
