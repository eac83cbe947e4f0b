import { beforeAll, describe, expect, it } from 'vitest';
import { App, Aspects } from 'aws-cdk-lib/core';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { MACHINE_CAPACITY, MACHINE_TYPES } from '../../infra/machineTypes.js';
import { sluiceNames } from '../../infra/names.js';
import { ComputeStack } from '../../infra/stacks/computeStack.js';
import { parseWarmPool, type WarmPoolSizes } from '../../infra/warmPool.js';
import { PREFIX, capacityOf, refOf, resourcesOf, type Resource } from './sluiceTemplates.js';

/** The compute stack with these warm pools, synthesized with cdk-nag's AwsSolutions checks. */
function computeWith(warmPool: WarmPoolSizes): { stack: ComputeStack; template: Template } {
  const app = new App();
  const stack = new ComputeStack(app, 'SluiceCompute', { names: sluiceNames(PREFIX), warmPool });
  Aspects.of(app).add(new AwsSolutionsChecks());
  return { stack, template: Template.fromStack(stack) };
}

const warmPoolOf = (template: Template, machineType: string): Resource | undefined => {
  const { groupId } = capacityOf(template, machineType);
  return Object.values(resourcesOf(template, 'AWS::AutoScaling::WarmPool')).find((pool) => refOf(pool.Properties.AutoScalingGroupName) === groupId);
};
const userDataOf = (template: Template, machineType: string): string =>
  JSON.stringify(capacityOf(template, machineType).launchTemplate.Properties.LaunchTemplateData.UserData);

describe('warm pools of stopped instances (sluice:warmPool)', () => {
  let named: { stack: ComputeStack; template: Template };
  beforeAll(() => {
    named = computeWith({ t4: 2, l4: 1, a100: 3 });
  });

  it('keeps the asked number of stopped instances ready for each machine type named, and none for the others', () => {
    expect(Object.keys(resourcesOf(named.template, 'AWS::AutoScaling::WarmPool'))).toHaveLength(3);
    expect(warmPoolOf(named.template, 't4')?.Properties).toEqual({
      AutoScalingGroupName: expect.anything(),
      MinSize: 2,
      MaxGroupPreparedCapacity: 2,
      PoolState: 'Stopped',
    });
    expect(warmPoolOf(named.template, 'l4')?.Properties).toMatchObject({ MinSize: 1, MaxGroupPreparedCapacity: 1, PoolState: 'Stopped' });
    for (const machineType of ['cpu', 'a100-20gb', 'v100']) expect(warmPoolOf(named.template, machineType), machineType).toBeUndefined();
  });

  it('never returns instances to the pool on scale-in, which ECS does not support', () => {
    const pools = Object.values(resourcesOf(named.template, 'AWS::AutoScaling::WarmPool'));
    expect(pools).not.toEqual([]);
    for (const pool of pools) expect(pool.Properties.InstanceReusePolicy).toBeUndefined();
  });

  it('holds a pool to its group’s maximum instances', () => {
    expect(MACHINE_CAPACITY.a100.maxInstances).toBe(1);
    expect(warmPoolOf(named.template, 'a100')?.Properties).toMatchObject({ MinSize: 1, MaxGroupPreparedCapacity: 1 });
  });

  it('has the ECS agent of a pooled instance join the cluster only once the instance leaves the pool (ECS_WARM_POOLS_CHECK)', () => {
    expect(userDataOf(named.template, 't4')).toContain('echo ECS_WARM_POOLS_CHECK=true >> /etc/ecs/ecs.config');
    expect(userDataOf(named.template, 'cpu')).not.toContain('ECS_WARM_POOLS_CHECK');
  });

  it('leaves no unacknowledged cdk-nag finding with a warm pool for every machine type', () => {
    const { stack, template } = computeWith(Object.fromEntries(MACHINE_TYPES.map((machineType) => [machineType, 1])));
    template.resourceCountIs('AWS::AutoScaling::WarmPool', MACHINE_TYPES.length);
    const annotations = Annotations.fromStack(stack);
    const finding = Match.stringLikeRegexp('^(AwsSolutions-|CdkNagValidationFailure)');
    const findings = [...annotations.findError('*', finding), ...annotations.findWarning('*', finding)].map(
      (found) => `${found.id}: ${String(found.entry.data)}`,
    );
    expect(findings, findings.join('\n')).toEqual([]);
  });
});

describe('the context value sluice:warmPool', () => {
  it('gives every machine type the same pool for a number, as cdk passes it (a string) or cdk.json holds it', () => {
    const everyType = (count: number) => Object.fromEntries(MACHINE_TYPES.map((machineType) => [machineType, count]));
    expect(parseWarmPool('1')).toEqual(everyType(1));
    expect(parseWarmPool(2)).toEqual(everyType(2));
  });

  it('gives the machine types named in `type=count` pairs their pools, and the others none', () => {
    expect(parseWarmPool('t4=1,l4=2')).toEqual({ t4: 1, l4: 2 });
    expect(parseWarmPool(' a100-20gb = 1 ')).toEqual({ 'a100-20gb': 1 });
  });

  it('means no warm pool when absent or 0', () => {
    expect(parseWarmPool(undefined)).toBeUndefined();
    expect(parseWarmPool('0')).toEqual(Object.fromEntries(MACHINE_TYPES.map((machineType) => [machineType, 0])));
  });

  it.each([
    ['-1', 'a whole number'],
    ['1.5', 'a whole number'],
    ['', 'a whole number'],
    ['t4=', 'a whole number'],
    ['t4=1,t4=2', 'names t4 twice'],
    ['gpu=1', '"gpu" is not a machine type'],
  ])('refuses %j, saying why', (value, why) => {
    expect(() => parseWarmPool(value)).toThrow(/^sluice:warmPool/);
    expect(() => parseWarmPool(value)).toThrow(why);
  });
});
