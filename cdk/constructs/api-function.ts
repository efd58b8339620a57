import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Architecture, Runtime, type ILayerVersion } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { join } from 'node:path';
import type { Route } from '../../lib/http/route.ts';
import { bundling } from '../bundling.ts';

export const repoRoot = join(import.meta.dirname, '..', '..');

export interface ApiFunctionProps {
  stage: string;
  /** The function's row of the route table (or the `$default` fallback). */
  entry: string;
  name: string;
  profile: Route['profile'];
  timeoutSeconds?: number;
  role: IRole;
  environment: Record<string, string>;
  circuitsLayer?: ILayerVersion;
}

/**
 * What every function shares, pinned in one place: Node.js 22 on ARM64, esbuild bundling without
 * Docker, source maps, log retention, timeout and memory. Crypto functions get more memory (CPU
 * scales with it) and the circuits layer at /opt.
 */
export class ApiFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    const crypto = props.profile === 'crypto';
    const functionName = `shroud-${props.stage}-${props.name}`.slice(0, 64);
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      logGroupName: `/aws/lambda/${functionName}`,
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    super(scope, id, {
      functionName,
      entry: join(repoRoot, props.entry),
      handler: 'handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: crypto ? 2048 : 512,
      timeout: Duration.seconds(props.timeoutSeconds ?? (crypto ? 29 : 10)),
      role: props.role,
      logGroup,
      layers: crypto && props.circuitsLayer ? [props.circuitsLayer] : [],
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: 'shroud',
        ...(crypto ? { CIRCUITS_DIR: '/opt' } : {}),
        ...props.environment,
      },
      depsLockFilePath: join(repoRoot, 'package-lock.json'),
      projectRoot: repoRoot,
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        target: bundling.target,
        sourceMap: bundling.sourcemap,
        minify: bundling.minify,
        mainFields: bundling.mainFields,
        externalModules: bundling.external,
        banner: bundling.banner,
      },
    });
  }
}
