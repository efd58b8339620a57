import { App, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { applyRehearsal } from './rehearsal.ts';
import { ShroudStack } from './stack.ts';

/**
 * `cdk synth|deploy -c stage=NAME`: every developer gets a personal stage; every physical name
 * carries the stage. Synthesis needs no AWS credentials: account and region stay unresolved.
 */
const app = new App();
// `-c rehearsal=true`: the local rehearsal stage's context (cdk/rehearsal.ts).
applyRehearsal(app);
const stage = String(app.node.tryGetContext('stage') ?? process.env.STAGE ?? 'dev');
new ShroudStack(app, `Shroud-${stage}`, { stage, description: `Shroud backend, stage ${stage}` });
Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
