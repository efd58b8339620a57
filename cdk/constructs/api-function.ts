import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Architecture, Function as LambdaFunction, Runtime, Tracing, type ILayerVersion } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { Route } from '../../lib/http/route.ts';
import { functionCode, sourceMapsWanted } from '../function-bundles.ts';
import { METRICS_NAMESPACE } from '../../lib/metrics.ts';
import { SERVICE } from '../monitoring.ts';

export { repoRoot } from '../function-bundles.ts';

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
 * What every function shares, pinned in one place: Node.js 22 on ARM64, its bundle from the one
 * esbuild run of cdk/function-bundles.ts (source maps when asked), log retention, timeout and
 * memory, X-Ray active tracing and the Powertools settings. Crypto functions get more memory (CPU scales with it) and the circuits layer at /opt.
 */
export class ApiFunction extends LambdaFunction {
  /** The physical name as a plain string (`functionName` is a token outside its own stack). */
  readonly plainName: string;
  /** The module of its asset that `Handler` names (cdk/function-bundles.ts: `quote` in a group's asset, else `index`). */
  readonly handlerModule: string;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    const crypto = props.profile === 'crypto';
    const sourceMaps = sourceMapsWanted(scope);
    const functionName = `shroud-${props.stage}-${props.name}`.slice(0, 64);
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      logGroupName: `/aws/lambda/${functionName}`,
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const { code, module } = functionCode(scope, props.entry);
    super(scope, id, {
      functionName,
      code,
      handler: `${module}.handler`,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: crypto ? 2048 : 512,
      timeout: Duration.seconds(props.timeoutSeconds ?? (crypto ? 29 : 10)),
      role: props.role,
      logGroup,
      layers: crypto && props.circuitsLayer ? [props.circuitsLayer] : [],
      tracing: Tracing.ACTIVE,
      environment: {
        ...(sourceMaps ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
        ...(crypto ? { CIRCUITS_DIR: '/opt' } : {}),
        ...props.environment,
        // Last, so that no deployment setting can move the metrics away from the alarms' dimensions.
        SERVICE_NAME: SERVICE,
        POWERTOOLS_SERVICE_NAME: SERVICE,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        // Responses carry cookies, identities and proofs: never into traces.
        POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
      },
    });
    this.plainName = functionName;
    this.handlerModule = module;
  }
}
