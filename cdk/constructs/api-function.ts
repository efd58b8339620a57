import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Architecture, Runtime, Tracing, type ILayerVersion } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { join } from 'node:path';
import type { Route } from '../../lib/http/route.ts';
import { bundling } from '../bundling.ts';
import { METRICS_NAMESPACE } from '../../lib/metrics.ts';
import { SERVICE } from '../monitoring.ts';

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
 * Docker, source maps, log retention, timeout and memory, X-Ray active tracing and the Powertools
 * settings. Crypto functions get more memory (CPU scales with it) and the circuits layer at /opt.
 */
export class ApiFunction extends NodejsFunction {
  /** The physical name as a plain string (`functionName` is a token outside its own stack). */
  readonly plainName: string;

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
      tracing: Tracing.ACTIVE,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        ...(crypto ? { CIRCUITS_DIR: '/opt' } : {}),
        ...props.environment,
        // Last, so that no deployment setting can move the metrics away from the alarms' dimensions.
        SERVICE_NAME: SERVICE,
        POWERTOOLS_SERVICE_NAME: SERVICE,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        // Responses carry cookies, identities and proofs: never into traces.
        POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
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
        // The API reference page reads Swagger UI's files beside its bundle (lib/openapi/reference-page.ts).
        ...(props.entry === 'functions/docs/asset.ts' ? { commandHooks: swaggerUiFiles } : {}),
      },
    });
    this.plainName = functionName;
  }
}

/** Copies swagger-ui-dist's bundle and style sheet into the docs asset function's bundle. */
const swaggerUiFiles = {
  beforeBundling: () => [],
  beforeInstall: () => [],
  afterBundling: (inputDir: string, outputDir: string) =>
    ['swagger-ui-bundle.js', 'swagger-ui.css'].map((f) => `cp "${inputDir}/node_modules/swagger-ui-dist/${f}" "${outputDir}/${f}"`),
};
