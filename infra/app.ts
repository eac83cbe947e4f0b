import { App } from 'aws-cdk-lib/core';
import { parseApiThrottle } from './apiThrottle.js';
import { parseWaiterConcurrency } from './waiterConcurrency.js';
import { parseWarmPool } from './warmPool.js';
import { createSluiceStacks, parseCorsContext, parseNatGateways } from './sluiceApp.js';

/**
 * The AWS mode's CDK app. Stacks are environment-agnostic unless CDK_DEFAULT_ACCOUNT and
 * CDK_DEFAULT_REGION are set, so `cdk synth` needs no credentials (and no network: no lookups).
 */
const app = new App();

const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION;
const env = account && region ? { account, region } : undefined;

const prefix = (app.node.tryGetContext('sluice:tablePrefix') as string | undefined) ?? 'sluice-';
const publicUrl = app.node.tryGetContext('sluice:publicUrl') as string | undefined;
const natGateways = parseNatGateways(app.node.tryGetContext('sluice:natGateways'));
const corsOrigins = parseCorsContext(app.node.tryGetContext('sluice:corsOrigins'));
const apiThrottle = parseApiThrottle(app.node.tryGetContext('sluice:apiThrottleRate'), app.node.tryGetContext('sluice:apiThrottleBurst'));
const context = (name: string): unknown => app.node.tryGetContext(name);
const waiterConcurrency = parseWaiterConcurrency(
  context('sluice:waiterConcurrency'),
  context('sluice:longAwaitConcurrency'),
  context('sluice:lambdaConcurrency'),
);

const warmPool = parseWarmPool(context('sluice:warmPool'));

createSluiceStacks(app, { prefix, env, publicUrl, natGateways, corsOrigins, apiThrottle, waiterConcurrency, warmPool });

app.synth();
