import { App } from 'aws-cdk-lib/core';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { idleMonthlyCost, monthlyRuns } from '../../bench/idleCost.js';
import type { Template as Synthesized } from '../../emulator/cloudAssembly.js';
import { sluiceNames } from '../../infra/names.js';
import { ComputeStack } from '../../infra/stacks/computeStack.js';

/** The compute stack (where the VPC is) synthesized alone, as `cdk synth` writes it. */
function computeTemplate(natGateways?: 0 | 1): Record<string, Synthesized> {
  const stack = new ComputeStack(new App(), 'SluiceCompute', { names: sluiceNames('test-'), natGateways });
  return { SluiceCompute: Template.fromStack(stack).toJSON() as Synthesized };
}

describe('the idle month of a deployment, from its synthesized templates', () => {
  it('bills the default deployment its one NAT gateway and that gateway’s public IPv4 address, every hour of the month', () => {
    const lines = idleMonthlyCost(computeTemplate(), 0);
    expect(lines).toEqual([
      { item: 'NAT gateways (hours)', count: 1, monthly: expect.closeTo(0.045 * 730, 6) },
      { item: 'public IPv4 addresses (Elastic IPs)', count: 1, monthly: expect.closeTo(0.005 * 730, 6) },
    ]);
  });

  it('bills natGateways=0 no NAT gateway and no address: its instances are public only while they run', () => {
    expect(idleMonthlyCost(computeTemplate(0), 0)).toEqual([]);
  });

  it('bills a scheduled rule its runs of the month at the measured cost of one run', () => {
    const stacks: Record<string, Synthesized> = {
      Build: { Resources: { Sweep: { Type: 'AWS::Events::Rule', Properties: { ScheduleExpression: 'rate(1 minute)' } } } },
    };
    expect(monthlyRuns('rate(1 minute)')).toBe(43_800);
    expect(monthlyRuns('rate(2 hours)')).toBe(365);
    expect(monthlyRuns('cron(0 12 * * ? *)')).toBeNull();
    expect(idleMonthlyCost(stacks, 0.000001)).toEqual([{ item: 'scheduled rule runs (the sweeper)', count: 43_800, monthly: expect.closeTo(0.0438, 9) }]);
  });
});
