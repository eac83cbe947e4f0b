import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib/core';
import { Template } from 'aws-cdk-lib/assertions';
import { MACHINE_CAPACITY, MACHINE_TYPES, isGpuCapacity } from '../../infra/machineTypes.js';
import { sluiceNames } from '../../infra/names.js';
import { parseNatGateways } from '../../infra/sluiceApp.js';
import { ComputeStack } from '../../infra/stacks/computeStack.js';
import { PREFIX, actionsOf, capacityOf as capacityOfIn, logicalIdOf, refOf, resourcesOf, roleStatements, tablesNamed } from './sluiceTemplates.js';

// The stack needs no Lambda code: built alone, without the rest of the app.
let compute: ComputeStack;
let template: Template;

beforeAll(() => {
  compute = new ComputeStack(new App(), 'SluiceCompute', { names: sluiceNames(PREFIX) });
  template = Template.fromStack(compute);
});

const capacityOf = (machineType: string) => capacityOfIn(template, machineType);

describe('ComputeStack', () => {
  it('knows an instance type for every machine type of the interface, and no other', () => {
    expect(Object.keys(MACHINE_CAPACITY).sort()).toEqual([...MACHINE_TYPES].sort());
  });

  it('builds a VPC over two availability zones with one NAT gateway', () => {
    template.resourceCountIs('AWS::EC2::NatGateway', 1);
    const subnets = Object.values(resourcesOf(template, 'AWS::EC2::Subnet'));
    expect(subnets).toHaveLength(4);
    expect(new Set(subnets.map((subnet) => JSON.stringify(subnet.Properties.AvailabilityZone))).size).toBe(2);
  });

  it('creates one capacity provider per machine type, all on the cluster', () => {
    template.resourceCountIs('AWS::ECS::CapacityProvider', MACHINE_TYPES.length);
    template.hasResourceProperties('AWS::ECS::Cluster', { ClusterName: `${PREFIX}cluster` });
    const associations = Object.values(resourcesOf(template, 'AWS::ECS::ClusterCapacityProviderAssociations'));
    expect(associations).toHaveLength(1);
    expect((associations[0]?.Properties.CapacityProviders as unknown[]).length).toBe(MACHINE_TYPES.length);
  });

  describe.each(MACHINE_TYPES.map((type) => [type]))('the %s capacity', (machineType) => {
    const capacity = MACHINE_CAPACITY[machineType];

    it(`is an Auto Scaling group of ${capacity.instanceType} instances, from 0 to ${capacity.maxInstances}, with managed scaling`, () => {
      const { provider, group, launchTemplate } = capacityOf(machineType);
      expect(launchTemplate.Properties.LaunchTemplateData.InstanceType).toBe(capacity.instanceType);
      expect(group.Properties.MinSize).toBe('0');
      expect(group.Properties.MaxSize).toBe(String(capacity.maxInstances));
      expect(group.Properties.DesiredCapacity).toBeUndefined();
      expect(provider.Properties.AutoScalingGroupProvider.ManagedScaling.Status).toBe('ENABLED');
    });

    it(isGpuCapacity(machineType) ? 'boots the ECS GPU-optimized Amazon Linux 2023 AMI' : 'boots the ECS-optimized Amazon Linux 2023 AMI', () => {
      const { launchTemplate } = capacityOf(machineType);
      const parameter = template.toJSON().Parameters[refOf(launchTemplate.Properties.LaunchTemplateData.ImageId)];
      expect(parameter.Default).toBe(
        isGpuCapacity(machineType)
          ? '/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id'
          : '/aws/service/ecs/optimized-ami/amazon-linux-2023/recommended/image_id',
      );
    });

    it('joins the cluster through /etc/ecs/ecs.config, as Amazon Linux 2023’s ECS agent reads it', () => {
      const userData = JSON.stringify(capacityOf(machineType).launchTemplate.Properties.LaunchTemplateData.UserData);
      expect(userData).toContain('echo ECS_CLUSTER=');
      expect(userData).toContain(' >> /etc/ecs/ecs.config');
    });

    const { sizeGiB, throughputMiBps, iops } = capacity.rootVolume;
    it(`requires IMDSv2 and boots from an encrypted gp3 root volume of ${sizeGiB} GiB at ${throughputMiBps} MiB/s and ${iops} IOPS, which images are pulled onto`, () => {
      const data = capacityOf(machineType).launchTemplate.Properties.LaunchTemplateData;
      expect(data.MetadataOptions.HttpTokens).toBe('required');
      expect(data.BlockDeviceMappings).toEqual([
        { DeviceName: '/dev/xvda', Ebs: { VolumeType: 'gp3', Encrypted: true, VolumeSize: sizeGiB, Throughput: throughputMiBps, Iops: iops } },
      ]);
    });

    it('has the ECS agent start tasks from an image it already holds, and keep images for hours after their tasks stop', () => {
      const userData = JSON.stringify(capacityOf(machineType).launchTemplate.Properties.LaunchTemplateData.UserData);
      expect(userData).toContain('echo ECS_IMAGE_PULL_BEHAVIOR=prefer-cached >> /etc/ecs/ecs.config');
      expect(userData).toContain('echo ECS_ENGINE_TASK_CLEANUP_WAIT_DURATION=3h >> /etc/ecs/ecs.config');
      expect(userData).toContain('echo ECS_IMAGE_MINIMUM_CLEANUP_AGE=6h >> /etc/ecs/ecs.config');
    });

    it('keeps tasks from the instance metadata service: one hop (IMDSv2 only), and the ECS agent blocks it for awsvpc tasks', () => {
      const data = capacityOf(machineType).launchTemplate.Properties.LaunchTemplateData;
      expect(data.MetadataOptions).toMatchObject({ HttpTokens: 'required', HttpPutResponseHopLimit: 1 });
      expect(JSON.stringify(data.UserData)).toContain('echo ECS_AWSVPC_BLOCK_IMDS=true >> /etc/ecs/ecs.config');
    });
  });

  it('raises every root volume above gp3’s free baseline (125 MiB/s, 3,000 IOPS) within gp3’s limits, GPU ones to 6,000 IOPS', () => {
    for (const machineType of MACHINE_TYPES) {
      const { sizeGiB, throughputMiBps, iops } = MACHINE_CAPACITY[machineType].rootVolume;
      expect(throughputMiBps, machineType).toBeGreaterThan(125);
      // gp3: at most 0.25 MiB/s per provisioned IOPS, 500 IOPS per GiB.
      expect(throughputMiBps, machineType).toBeLessThanOrEqual(iops * 0.25);
      expect(iops, machineType).toBeLessThanOrEqual(sizeGiB * 500);
      expect(iops, machineType).toBeGreaterThanOrEqual(isGpuCapacity(machineType) ? 6000 : 3000);
    }
  });

  it('keeps no warm pool unless asked (stopped instances cost their volumes)', () => {
    template.resourceCountIs('AWS::AutoScaling::WarmPool', 0);
    for (const launchTemplate of Object.values(resourcesOf(template, 'AWS::EC2::LaunchTemplate')))
      expect(JSON.stringify(launchTemplate.Properties.LaunchTemplateData.UserData)).not.toContain('ECS_WARM_POOLS_CHECK');
  });

  it('boots no Amazon Linux 2 AMI (out of support on 2026-06-30)', () => {
    const parameters = Object.values(template.toJSON().Parameters as Record<string, { Default?: string }>).map((parameter) => parameter.Default ?? '');
    expect(parameters.filter((name) => name.includes('/amazon-linux-2/'))).toEqual([]);
  });

  it('logs the VPC’s rejected traffic to a log group kept a month', () => {
    const flowLogs = Object.values(resourcesOf(template, 'AWS::EC2::FlowLog'));
    expect(flowLogs).toHaveLength(1);
    expect(flowLogs[0]?.Properties).toMatchObject({ ResourceType: 'VPC', TrafficType: 'REJECT', LogDestinationType: 'cloud-watch-logs' });
  });

  it('maps a100-20gb to whole A100s (p4d.24xlarge, like a100)', () => {
    expect(MACHINE_CAPACITY['a100-20gb'].instanceType).toBe(MACHINE_CAPACITY.a100.instanceType);
  });

  it('lets worker tasks use the jobs, outputs, logs, usage and deliveries tables (and clear their version’s failed-task count) and consume and send on the versions’ queues', () => {
    const statements = roleStatements(template, logicalIdOf(compute.taskRole));
    expect(tablesNamed(statements, 'dynamodb:PutItem')).toEqual(
      new Set(['jobs', 'job_outputs', 'logs', 'usage_jobs', 'usage_hours', 'webhook_deliveries', 'versions']),
    );
    expect(tablesNamed(statements)).toEqual(
      new Set(['jobs', 'job_outputs', 'logs', 'usage_jobs', 'usage_hours', 'webhook_deliveries', 'versions', 'functions', 'organizations']),
    );
    const queue = statements.find((statement) => actionsOf([statement]).includes('sqs:ReceiveMessage'));
    expect(JSON.stringify(queue?.Resource)).toContain(`:${PREFIX}v-*`);
    expect(actionsOf(statements)).not.toContain('sqs:CreateQueue');
    expect(actionsOf(statements).filter((action) => action.startsWith('iam:'))).toEqual([]);
  });

  it('lets worker tasks write nothing of the organizations table but the mark that a budget.warning was sent', () => {
    const statements = roleStatements(template, logicalIdOf(compute.taskRole));
    const writes = statements.filter(
      (statement) =>
        JSON.stringify(statement.Resource).includes('organizations') && actionsOf([statement]).some((action) => /Put|Update|Delete|Write/.test(action)),
    );
    expect(writes.map((statement) => actionsOf([statement]))).toEqual([['dynamodb:UpdateItem']]);
    expect(writes[0]?.Condition).toEqual({
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['name', 'id', 'budget_warned_month'] },
      StringEqualsIfExists: { 'dynamodb:ReturnValues': ['NONE', 'UPDATED_OLD', 'UPDATED_NEW'] },
    });
  });

  it('lets worker tasks protect their own cluster’s tasks from scale-in and wake the services of idle versions their jobs call, and do nothing else in ECS', () => {
    const statements = roleStatements(template, logicalIdOf(compute.taskRole));
    expect(
      actionsOf(statements)
        .filter((action) => action.startsWith('ecs:'))
        .sort(),
    ).toEqual(['ecs:DescribeServices', 'ecs:GetTaskProtection', 'ecs:UpdateService', 'ecs:UpdateTaskProtection']);
    const update = statements.find((statement) => actionsOf([statement]).includes('ecs:UpdateService'));
    expect(JSON.stringify(update?.Resource)).toContain(`:service/${PREFIX}cluster/v-*`);
    const protection = statements.find((statement) => actionsOf([statement]).includes('ecs:UpdateTaskProtection'));
    expect(JSON.stringify(protection?.Resource)).toContain(`:task/${PREFIX}cluster/*`);
  });

  it('lets worker tasks read bundles/ and files/, and write files/, uploads/ (files a job passes on) and spill/ (large outputs) only', () => {
    const statements = roleStatements(template, logicalIdOf(compute.taskRole));
    const put = statements.find((statement) => actionsOf([statement]).includes('s3:PutObject'));
    expect(JSON.stringify(put?.Resource)).toMatch(/\/files\/\*"/);
    expect(JSON.stringify(put?.Resource)).toMatch(/\/uploads\/\*"/);
    expect(JSON.stringify(put?.Resource)).toMatch(/\/spill\/\*"/);
    expect(JSON.stringify(put?.Resource)).not.toContain('bundles/');
    const remove = statements.filter((statement) => actionsOf([statement]).includes('s3:DeleteObject'));
    expect(remove.map((statement) => JSON.stringify(statement.Resource))).toEqual([expect.stringMatching(/\/spill\/\*"\]\]\}$/)]);
  });

  it('lets container instances join the cluster and report their tasks’ states, with every action named', () => {
    const instanceRole = Object.keys(resourcesOf(template, 'AWS::IAM::Role')).find((id) => id.startsWith('InstanceRole')) as string;
    const statements = roleStatements(template, instanceRole);
    expect(actionsOf(statements).sort()).toEqual([
      'ecr:GetAuthorizationToken',
      'ecs:DeregisterContainerInstance',
      'ecs:DiscoverPollEndpoint',
      'ecs:Poll',
      'ecs:RegisterContainerInstance',
      'ecs:StartTelemetrySession',
      'ecs:SubmitAttachmentStateChanges',
      'ecs:SubmitContainerStateChange',
      'ecs:SubmitTaskStateChange',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
    ]);
    const cluster = statements.find((statement) => actionsOf([statement]).includes('ecs:RegisterContainerInstance'));
    expect(cluster?.Resource).toEqual({ 'Fn::GetAtt': [logicalIdOf(compute.cluster), 'Arn'] });
  });

  it('lets ECS pull images of the repository only and write the workers’ log group', () => {
    const statements = roleStatements(template, logicalIdOf(compute.executionRole));
    const pull = statements.find((statement) => actionsOf([statement]).includes('ecr:BatchGetImage'));
    expect(JSON.stringify(pull?.Resource)).toContain(`:repository/${PREFIX}functions`);
    template.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: `/sluice/${PREFIX}workers` });
  });

  it('has the root volumes docs/deploying-to-aws.md prices under "Cold starts"', () => {
    const rows = readFileSync(new URL('../../docs/deploying-to-aws.md', import.meta.url), 'utf8').split('\n');
    for (const machineType of MACHINE_TYPES) {
      const { sizeGiB, throughputMiBps, iops } = MACHINE_CAPACITY[machineType].rootVolume;
      const volume = `${sizeGiB} GiB, ${throughputMiBps.toLocaleString('en-US')} MiB/s, ${iops.toLocaleString('en-US')} IOPS`;
      expect(
        rows.filter((row) => row.includes(`\`${machineType}\``) && row.includes(volume)),
        `${machineType}: ${volume}`,
      ).toHaveLength(1);
    }
  });

  it('is the table docs/deploying-to-aws.md prints', () => {
    const docs = readFileSync(new URL('../../docs/deploying-to-aws.md', import.meta.url), 'utf8');
    for (const machineType of MACHINE_TYPES) {
      expect(docs).toMatch(new RegExp(`\\|\\s*\`${machineType}\`\\s*\\|\\s*${MACHINE_CAPACITY[machineType].instanceType.replace('.', '\\.')}\\s*\\|`));
    }
  });
});

describe('ComputeStack without a NAT gateway (sluice:natGateways=0)', () => {
  let withoutNat: ComputeStack;
  let publicTemplate: Template;
  beforeAll(() => {
    withoutNat = new ComputeStack(new App(), 'SluiceCompute', { names: sluiceNames(PREFIX), natGateways: 0 });
    publicTemplate = Template.fromStack(withoutNat);
  });

  it('has no NAT gateway and only public subnets, whose instances get a public IPv4 address', () => {
    publicTemplate.resourceCountIs('AWS::EC2::NatGateway', 0);
    const subnets = Object.values(resourcesOf(publicTemplate, 'AWS::EC2::Subnet'));
    expect(subnets).toHaveLength(2);
    expect(subnets.map((subnet) => subnet.Properties.MapPublicIpOnLaunch)).toEqual([true, true]);
    publicTemplate.resourceCountIs('AWS::EC2::InternetGateway', 1);
  });

  it('runs every capacity’s instances in the public subnets, reachable from nowhere', () => {
    const publicSubnets = Object.keys(resourcesOf(publicTemplate, 'AWS::EC2::Subnet'));
    for (const group of Object.values(resourcesOf(publicTemplate, 'AWS::AutoScaling::AutoScalingGroup'))) {
      expect((group.Properties.VPCZoneIdentifier as unknown[]).map(refOf).sort()).toEqual(publicSubnets.sort());
    }
    for (const securityGroup of Object.values(resourcesOf(publicTemplate, 'AWS::EC2::SecurityGroup')))
      expect(securityGroup.Properties.SecurityGroupIngress).toBeUndefined();
  });

  it('gives tasks no subnets of their own (bridge mode): the agent hands them their task role, the instance’s stays out of reach', () => {
    expect(withoutNat.taskSubnets).toEqual([]);
    for (const launchTemplate of Object.values(resourcesOf(publicTemplate, 'AWS::EC2::LaunchTemplate'))) {
      const data = launchTemplate.Properties.LaunchTemplateData;
      expect(data.MetadataOptions).toMatchObject({ HttpTokens: 'required', HttpPutResponseHopLimit: 1 });
      expect(JSON.stringify(data.UserData)).toContain('ECS_ENABLE_TASK_IAM_ROLE=true');
      expect(JSON.stringify(data.UserData)).toContain('ECS_AWSVPC_BLOCK_IMDS=true');
    }
  });

  it('reads the context value as cdk passes it (a string) or cdk.json holds it (a number), and refuses others', () => {
    expect([parseNatGateways('0'), parseNatGateways(0), parseNatGateways('1'), parseNatGateways(undefined)]).toEqual([0, 0, 1, undefined]);
    expect(() => parseNatGateways('2')).toThrow('sluice:natGateways must be 0 or 1, not "2"');
  });

  it('keeps tasks in private subnets behind one NAT by default', () => {
    expect(compute.taskSubnets).toEqual(compute.vpc.privateSubnets);
    expect(compute.taskSubnets).toHaveLength(2);
  });
});
