import { App } from 'aws-cdk-lib';
import { DataStack } from './stacks/dataStack.js';

/**
 * The AWS mode's CDK app. Stacks are environment-agnostic unless CDK_DEFAULT_ACCOUNT and
 * CDK_DEFAULT_REGION are set, so `cdk synth` needs no credentials.
 */
const app = new App();

const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION;
const env = account && region ? { account, region } : undefined;

const tablePrefix = (app.node.tryGetContext('sluice:tablePrefix') as string | undefined) ?? 'sluice-';

new DataStack(app, 'SluiceData', { env, tablePrefix, description: 'Sluice: DynamoDB tables of the store' });

app.synth();
