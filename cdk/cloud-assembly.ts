/**
 * What `cdk synth` wrote, read back as CloudFormation will read it: every template of the cloud
 * assembly (the root stacks and, through their AWS::CloudFormation::Stack resources, the nested
 * ones with the parameters their parents pass), and every Lambda function in them with its asset
 * directory, handler, layers and environment. Expressions (Ref, Fn::GetAtt, Fn::Join, Fn::Select,
 * Fn::Split, pseudo parameters, dynamic references) are resolved by a caller's `Resolver`: the load
 * check (cdk/check-assets.ts) gives placeholders, the asset-mode runtime gives its local services.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
}
interface CfnTemplate {
  Resources?: Record<string, CfnResource>;
  Parameters?: Record<string, { Default?: unknown }>;
}

/** A resource some expression points at (Ref or Fn::GetAtt), in the template that defines it. */
export interface ResourceRef {
  stack: Scope;
  logicalId: string;
  resource: CfnResource;
  /** Fn::GetAtt's attribute; absent for a Ref. */
  attribute?: string;
}

/** How values the template leaves to CloudFormation become strings. */
export interface Resolver {
  /** A Ref or Fn::GetAtt of a resource. */
  resource(ref: ResourceRef): string;
  /** A `{{resolve:secretsmanager:…}}` or `{{resolve:ssm:…}}` reference inside a string. */
  dynamicReference(reference: string): string;
  /** AWS::AccountId, AWS::Region, AWS::Partition, AWS::URLSuffix, AWS::StackName. */
  pseudo(name: string, stack: Scope): string;
}

/** One template with the values of its parameters (a nested stack's, from its parent). */
export interface Scope {
  /** The root stack's name, or `<root>/<nested logical id>`. */
  name: string;
  file: string;
  template: CfnTemplate;
  /** Parameter → the parent's expression and the parent's scope to resolve it in. */
  parameters: Map<string, { expression: unknown; scope: Scope }>;
}

export interface SynthesizedFunction {
  stack: Scope;
  logicalId: string;
  /** FunctionName as the template gives it (resolved), else the logical id. */
  name: string;
  runtime: string;
  /** `index.handler` → file `index`, export `handler`. */
  handler: string;
  /** The bundle's directory (absolute), from the resource's `aws:asset:path`. */
  assetDir: string;
  /** The layers' asset directories, in the template's order (each is mounted at /opt). */
  layerDirs: string[];
  /** Environment.Variables, unresolved. */
  environment: Record<string, unknown>;
  timeoutSeconds: number;
  memoryMb: number;
  resource: CfnResource;
}

/** Every template of the assembly in `outdir` (cdk.out), roots first, each nested stack under its parent. */
export function readAssembly(outdir: string): Scope[] {
  const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as {
    artifacts?: Record<string, { type: string; properties?: { templateFile?: string } }>;
  };
  const scopes: Scope[] = [];
  const visit = (scope: Scope) => {
    scopes.push(scope);
    for (const [id, r] of Object.entries(scope.template.Resources ?? {})) {
      const path = r.Type === 'AWS::CloudFormation::Stack' ? (r.Metadata?.['aws:asset:path'] as string | undefined) : undefined;
      if (!path) continue;
      const params = (r.Properties?.Parameters ?? {}) as Record<string, unknown>;
      visit({
        name: `${scope.name}/${id}`,
        file: join(outdir, path),
        template: JSON.parse(readFileSync(join(outdir, path), 'utf8')) as CfnTemplate,
        parameters: new Map(Object.entries(params).map(([k, expression]) => [k, { expression, scope }])),
      });
    }
  };
  for (const [name, a] of Object.entries(manifest.artifacts ?? {})) {
    if (a.type !== 'aws:cloudformation:stack' || !a.properties?.templateFile) continue;
    const file = join(outdir, a.properties.templateFile);
    visit({ name, file, template: JSON.parse(readFileSync(file, 'utf8')) as CfnTemplate, parameters: new Map() });
  }
  return scopes;
}

const DYNAMIC_REFERENCE = /\{\{resolve:[^}]+\}\}/g;

/** An expression of `scope` as a string (lists joined by commas, as CloudFormation does for Ref of a list). */
export function resolveValue(expression: unknown, scope: Scope, resolver: Resolver): string {
  const r = resolveAny(expression, scope, resolver);
  return Array.isArray(r) ? r.join(',') : r;
}

function resolveAny(e: unknown, scope: Scope, resolver: Resolver): string | string[] {
  if (typeof e === 'string') return e.replace(DYNAMIC_REFERENCE, (m) => resolver.dynamicReference(m));
  if (typeof e === 'number' || typeof e === 'boolean') return String(e);
  if (Array.isArray(e)) return e.map((x) => resolveValue(x, scope, resolver));
  if (!e || typeof e !== 'object') throw new Error(`${scope.name}: cannot resolve ${JSON.stringify(e)}`);
  const [fn, arg] = Object.entries(e)[0]!;
  switch (fn) {
    case 'Ref': {
      const name = String(arg);
      if (name.startsWith('AWS::')) return resolver.pseudo(name, scope);
      const param = scope.parameters.get(name);
      if (param) return resolveAny(param.expression, param.scope, resolver);
      const declared = scope.template.Parameters?.[name];
      if (declared) {
        if (declared.Default === undefined) throw new Error(`${scope.name}: parameter ${name} has no value`);
        return resolveAny(declared.Default, scope, resolver);
      }
      return resolver.resource(refOf(scope, name));
    }
    case 'Fn::GetAtt': {
      const [id, attribute] = Array.isArray(arg) ? (arg as string[]) : String(arg).split(/\.(.+)/);
      return resolver.resource({ ...refOf(scope, id!), attribute });
    }
    case 'Fn::Join': {
      const [sep, parts] = arg as [string, unknown[]];
      // A dynamic reference is often joined from pieces (`{{resolve:secretsmanager:` + Ref + `:SecretString:::}}`).
      return parts
        .map((p) => resolveValue(p, scope, resolver))
        .join(sep)
        .replace(DYNAMIC_REFERENCE, (m) => resolver.dynamicReference(m));
    }
    case 'Fn::Select': {
      const [index, list] = arg as [unknown, unknown];
      const items = resolveAny(list, scope, resolver);
      const all = Array.isArray(items) ? items : items.split(',');
      return all[Number(resolveValue(index, scope, resolver))] ?? '';
    }
    case 'Fn::Split': {
      const [sep, value] = arg as [string, unknown];
      return resolveValue(value, scope, resolver).split(sep);
    }
    case 'Fn::Sub': {
      const [text, vars] = (Array.isArray(arg) ? arg : [arg, {}]) as [string, Record<string, unknown>];
      return text.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
        if (name in vars) return resolveValue(vars[name], scope, resolver);
        const [id, attribute] = name.split(/\.(.+)/);
        return resolveValue(attribute ? { 'Fn::GetAtt': [id, attribute] } : { Ref: id }, scope, resolver);
      });
    }
    case 'Fn::ImportValue':
      throw new Error(`${scope.name}: Fn::ImportValue ${JSON.stringify(arg)} (another stack's export) is not resolved here`);
    default:
      throw new Error(`${scope.name}: cannot resolve ${fn}`);
  }
}

function refOf(scope: Scope, logicalId: string): ResourceRef {
  const resource = scope.template.Resources?.[logicalId];
  if (!resource) throw new Error(`${scope.name}: no resource or parameter ${logicalId}`);
  return { stack: scope, logicalId, resource };
}

/** The asset directory of a resource whose property `property` is a staged asset (aws:asset:path). */
function assetDirOf(outdir: string, r: CfnResource): string | undefined {
  const path = r.Metadata?.['aws:asset:path'] as string | undefined;
  return path ? resolve(outdir, path) : undefined;
}

/**
 * The Node.js functions of the assembly. Layers are found through the nested stacks' parameters
 * to the LayerVersion resource that carries their asset.
 */
export function nodeFunctions(outdir: string, scopes: Scope[] = readAssembly(outdir)): SynthesizedFunction[] {
  const out: SynthesizedFunction[] = [];
  const names: Resolver = {
    resource: ({ logicalId, resource, attribute }) => {
      if (resource.Type === 'AWS::Lambda::LayerVersion' && !attribute) {
        const dir = assetDirOf(outdir, resource);
        if (!dir) throw new Error(`layer ${logicalId} has no asset`);
        return `layer:${dir}`;
      }
      return `${logicalId}${attribute ? `.${attribute}` : ''}`;
    },
    dynamicReference: (m) => m,
    pseudo: (n) => n,
  };
  for (const scope of scopes) {
    for (const [logicalId, r] of Object.entries(scope.template.Resources ?? {})) {
      if (r.Type !== 'AWS::Lambda::Function') continue;
      const p = r.Properties ?? {};
      const runtime = String(p.Runtime ?? '');
      if (!runtime.startsWith('nodejs')) continue;
      const assetDir = assetDirOf(outdir, r);
      if (!assetDir || !existsSync(assetDir)) throw new Error(`${scope.name}/${logicalId}: no asset directory (was the stack bundled? bundling-stacks)`);
      const layerDirs = ((p.Layers ?? []) as unknown[]).map((l) => {
        const v = resolveValue(l, scope, names);
        if (!v.startsWith('layer:')) throw new Error(`${scope.name}/${logicalId}: layer ${v} is not one of the assembly's`);
        return v.slice('layer:'.length);
      });
      out.push({
        stack: scope,
        logicalId,
        name: p.FunctionName === undefined ? logicalId : resolveValue(p.FunctionName, scope, names),
        runtime,
        handler: String(p.Handler ?? 'index.handler'),
        assetDir,
        layerDirs,
        environment: (p.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {},
        timeoutSeconds: Number(p.Timeout ?? 3),
        memoryMb: Number(p.MemorySize ?? 128),
        resource: r,
      });
    }
  }
  return out;
}

/** A function's environment with every expression resolved by `resolver`. */
export function environmentOf(fn: SynthesizedFunction, resolver: Resolver): Record<string, string> {
  return Object.fromEntries(Object.entries(fn.environment).map(([k, v]) => [k, resolveValue(v, fn.stack, resolver)]));
}

export const ACCOUNT = '000000000000';
export const REGION = 'us-east-1';

/** A pseudo parameter's value in account 000000000000, us-east-1; `other` for the rest. */
export function pseudoParameter(name: string, stack: Scope, other: string): string {
  const known: Record<string, string> = {
    'AWS::AccountId': ACCOUNT,
    'AWS::Region': REGION,
    'AWS::Partition': 'aws',
    'AWS::URLSuffix': 'amazonaws.com',
    'AWS::StackName': stack.name.split('/')[0]!,
  };
  return known[name] ?? other;
}

/** The name or ARN of a resource whose name the template itself gives (a table, a bucket), for any resolver; else undefined. */
export function namedResource(ref: ResourceRef, resolver: Resolver): string | undefined {
  const { logicalId, resource, attribute, stack } = ref;
  const prop = (k: string) => (resource.Properties?.[k] === undefined ? undefined : resolveValue(resource.Properties[k], stack, resolver));
  if (resource.Type === 'AWS::DynamoDB::Table') {
    const name = prop('TableName') ?? logicalId;
    return attribute === 'Arn' ? `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${name}` : name;
  }
  if (resource.Type === 'AWS::S3::Bucket') {
    const name = prop('BucketName') ?? logicalId.toLowerCase();
    return attribute === 'Arn' ? `arn:aws:s3:::${name}` : name;
  }
  return undefined;
}
/** A stable 32-hex id for a resource (KMS key ids, distribution ids): the same on every run. */
const idFor = (s: string) => {
  let h = 0x811c9dc5;
  const out: string[] = [];
  for (let round = 0; round < 4; round++) {
    for (const c of `${round}:${s}`) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
    out.push(h.toString(16).padStart(8, '0'));
  }
  return out.join('');
};

/**
 * Values of the shape AWS gives (names from the template, ARNs and URLs in account
 * 000000000000, us-east-1), for a function that only has to load: nothing is reached at them.
 */
export const placeholderResolver: Resolver = {
  pseudo: (name, stack) => pseudoParameter(name, stack, `${name}-placeholder`),
  dynamicReference: (ref) => `placeholder-${idFor(ref)}`,
  resource(ref) {
    const named = namedResource(ref, placeholderResolver);
    if (named !== undefined) return named;
    const { logicalId, resource, attribute, stack } = ref;
    const prop = (k: string) => (resource.Properties?.[k] === undefined ? undefined : resolveValue(resource.Properties[k], stack, placeholderResolver));
    const id = idFor(`${stack.name}/${logicalId}`);
    switch (resource.Type) {
      case 'AWS::KMS::Key': {
        const uuid = `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20, 32)}`;
        return attribute === 'Arn' ? `arn:aws:kms:${REGION}:${ACCOUNT}:key/${uuid}` : uuid;
      }
      case 'AWS::SQS::Queue': {
        const name = prop('QueueName') ?? logicalId;
        if (attribute === 'Arn') return `arn:aws:sqs:${REGION}:${ACCOUNT}:${name}`;
        if (attribute === 'QueueName') return name;
        return `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${name}`;
      }
      case 'AWS::CloudFront::Distribution':
        return attribute === 'DomainName' ? `d${id.slice(0, 13)}.cloudfront.net` : `E${id.slice(0, 13).toUpperCase()}`;
      case 'AWS::ApiGatewayV2::Api':
        return attribute === 'ApiEndpoint' ? `https://${id.slice(0, 10)}.execute-api.${REGION}.amazonaws.com` : id.slice(0, 10);
      case 'AWS::SecretsManager::Secret':
        return `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${logicalId}-${id.slice(0, 6)}`;
      default:
        return attribute ? `${logicalId}-${attribute}-placeholder` : `${logicalId}-placeholder`;
    }
  },
};
