import { RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib/core';
import { AutoScalingGroup, PoolState } from 'aws-cdk-lib/aws-autoscaling';
import {
  BlockDeviceVolume,
  EbsDeviceVolumeType,
  FlowLogDestination,
  FlowLogTrafficType,
  GatewayVpcEndpointAwsService,
  InstanceType,
  LaunchTemplate,
  SecurityGroup,
  SubnetType,
  UserData,
  Vpc,
  type ISubnet,
} from 'aws-cdk-lib/aws-ec2';
import { AmiHardwareType, AsgCapacityProvider, Cluster, EcsOptimizedImage, MachineImageType } from 'aws-cdk-lib/aws-ecs';
import { ManagedPolicy, PolicyStatement, Role, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { grantPermissions } from '../grants.js';
import { MACHINE_CAPACITY, MACHINE_TYPES, isGpuCapacity, type MachineType } from '../machineTypes.js';
import { arns, type SluiceNames } from '../names.js';
import { acknowledge, ANY_RESOURCE } from '../nag.js';
import { ROLE_PERMISSIONS } from '../routePermissions.js';
import type { WarmPoolSizes } from '../warmPool.js';

export interface ComputeStackProps extends StackProps {
  names: SluiceNames;
  /**
   * 1 (the default): instances and tasks in private subnets behind one NAT gateway, each task
   * with its own network interface (awsvpc). 0 (context `sluice:natGateways=0`): no NAT and no
   * private subnets; instances get public IPv4 addresses in public subnets (outbound only) and
   * tasks share their instance's network (bridge mode), which saves the NAT's fixed cost.
   */
  natGateways?: 0 | 1;
  /** Stopped instances kept ready per machine type (context `sluice:warmPool`); none by default. */
  warmPool?: WarmPoolSizes;
}

/**
 * The ECS agent's image settings on every instance. Each version's image has a tag of its own
 * (its id), pushed once, so a task starts from the copy its instance holds without asking ECR.
 * An image no task uses stays while a stopped task's containers do (3h, which also holds their
 * writable layers on disk) and at least 6h after its pull, so a version scaled in and out again
 * on a live instance does not pull again.
 */
const IMAGE_CACHE_SETTINGS = ['ECS_IMAGE_PULL_BEHAVIOR=prefer-cached', 'ECS_ENGINE_TASK_CLEANUP_WAIT_DURATION=3h', 'ECS_IMAGE_MINIMUM_CLEANUP_AGE=6h'];

/**
 * Where replicas run: a VPC, an ECS cluster, and one capacity provider per machine type (an
 * Auto Scaling group of that machine type's instances, infra/machineTypes.ts). Every group
 * starts at 0 instances and ECS managed scaling grows it only for tasks that need it, so an
 * idle deployment runs no instances.
 *
 * Scaling: the per-version ECS services and their Application Auto Scaling targets (between
 * the version's minimum and maximum replicas, step-scaled by two alarms on its queue's backlog,
 * shared/adapters/aws/queueScaling.ts) are not in this stack. The service creates them when a version's image is built (the build-event Lambda
 * through shared/adapters/aws/ecsCompute.ts), with the task roles, log group, subnets and
 * security group exported here; the build stack grants that Lambda the permissions to do so.
 */
export class ComputeStack extends Stack {
  readonly vpc: Vpc;
  readonly cluster: Cluster;
  readonly capacityProviders: Record<MachineType, AsgCapacityProvider>;
  /** The tasks' own permissions: the worker's (infra/routePermissions.ts ROLE_PERMISSIONS.worker). */
  readonly taskRole: Role;
  /** What ECS uses to start a task: pull its image, write its logs. */
  readonly executionRole: Role;
  readonly logGroup: LogGroup;
  /** The worker tasks' network interfaces (awsvpc): outbound only. */
  readonly taskSecurityGroup: SecurityGroup;
  /**
   * Where tasks get their own network interface (awsvpc); none when they share their
   * instance's (no NAT), which the service reads as bridge mode (SLUICE_SUBNETS empty).
   */
  readonly taskSubnets: ISubnet[];

  constructor(scope: Construct, id: string, props: ComputeStackProps) {
    super(scope, id, props);
    const { names } = props;
    const natGateways = props.natGateways ?? 1;

    // One NAT gateway (not one per AZ): the one fixed cost of an idle deployment, kept small.
    // Without it the instances are public (with no inbound rule) and reach out directly.
    this.vpc = new Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways,
      subnetConfiguration: [
        // Instances launched here get a public IPv4 address (CDK's default for public subnets).
        { name: 'public', subnetType: SubnetType.PUBLIC, cidrMask: 24 },
        ...(natGateways > 0 ? [{ name: 'private', subnetType: SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 20 }] : []),
      ],
    });
    this.taskSubnets = natGateways > 0 ? this.vpc.privateSubnets : [];
    // Free gateway endpoints: DynamoDB and S3 traffic (most of a worker's) bypasses the NAT.
    this.vpc.addGatewayEndpoint('DynamoDb', { service: GatewayVpcEndpointAwsService.DYNAMODB });
    this.vpc.addGatewayEndpoint('S3', { service: GatewayVpcEndpointAwsService.S3 });
    // Rejected traffic only: the record of what was turned away, without paying to log every
    // image pull and job's traffic.
    const flowLogs = new LogGroup(this, 'RejectedFlowLogs', { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    this.vpc.addFlowLog('RejectedFlows', { trafficType: FlowLogTrafficType.REJECT, destination: FlowLogDestination.toCloudWatchLogs(flowLogs) });

    this.cluster = new Cluster(this, 'Cluster', { vpc: this.vpc, clusterName: names.cluster });
    acknowledge(this.cluster, [
      {
        id: 'AwsSolutions-ECS4',
        reason:
          'Container Insights is billed per metric of every task and service, and versions come and go as services; scaling reads the queues’ SQS metrics, and worker logs go to the worker log group. Enable it with `aws ecs update-cluster-settings` where wanted.',
      },
    ]);
    this.taskSecurityGroup = new SecurityGroup(this, 'TaskSecurityGroup', {
      vpc: this.vpc,
      description: 'Sluice worker tasks (outbound only)',
      allowAllOutbound: true,
    });

    const instanceSecurityGroup = new SecurityGroup(this, 'InstanceSecurityGroup', {
      vpc: this.vpc,
      description: 'Sluice ECS container instances (outbound only)',
      allowAllOutbound: true,
    });
    const instanceRole = new Role(this, 'InstanceRole', {
      assumedBy: new ServicePrincipal('ec2.amazonaws.com'),
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('AmazonSSMManagedInstanceCore')],
    });
    this.grantContainerInstance(instanceRole);
    acknowledge(instanceRole, [
      {
        id: 'AwsSolutions-IAM4',
        reason:
          'AmazonSSMManagedInstanceCore: Session Manager access to container instances (no SSH, no inbound rule). AWS maintains its action list (ssm, ssmmessages, ec2messages), which the agent’s releases follow.',
        appliesTo: ['Policy::arn:<AWS::Partition>:iam::aws:policy/AmazonSSMManagedInstanceCore'],
      },
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'ecs:DiscoverPollEndpoint and ecr:GetAuthorizationToken take no resource in IAM; ecs:Poll and ecs:StartTelemetrySession are held to this cluster by an ecs:cluster condition; logs:CreateLogStream and PutLogEvents are the ECS agent’s own logs, whose group the agent names.',
        appliesTo: [ANY_RESOURCE],
      },
    ]);
    this.capacityProviders = Object.fromEntries(
      // The groups get the role without its policy updates: CDK's own grant to container instances
      // has a wildcard action (ecs:Submit*); grantContainerInstance writes the list out instead.
      MACHINE_TYPES.map((machineType) => [
        machineType,
        this.capacityProvider(machineType, names, instanceRole.withoutPolicyUpdates(), instanceSecurityGroup, {
          publicInstances: natGateways === 0,
          warmPool: props.warmPool?.[machineType] ?? 0,
        }),
      ]),
    ) as Record<MachineType, AsgCapacityProvider>;

    this.logGroup = new LogGroup(this, 'WorkerLogs', {
      logGroupName: names.workerLogGroup,
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    this.executionRole = new Role(this, 'TaskExecutionRole', {
      assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com'),
      description: 'ECS starts Sluice worker tasks: image pull, logs',
    });
    this.executionRole.addToPrincipalPolicy(new PolicyStatement({ actions: ['ecr:GetAuthorizationToken'], resources: ['*'] }));
    this.executionRole.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['ecr:BatchCheckLayerAvailability', 'ecr:GetDownloadUrlForLayer', 'ecr:BatchGetImage'],
        resources: [arns.repository(this, names.repository)],
      }),
    );
    this.executionRole.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [this.logGroup.logGroupArn] }),
    );
    acknowledge(this.executionRole, [
      {
        id: 'AwsSolutions-IAM5',
        reason: 'ecr:GetAuthorizationToken takes no resource in IAM (the pull actions are held to the function repository).',
        appliesTo: [ANY_RESOURCE],
      },
    ]);

    this.taskRole = new Role(this, 'TaskRole', {
      assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com'),
      description: 'Sluice worker tasks: run jobs of one version',
    });
    grantPermissions(this.taskRole, names, ROLE_PERMISSIONS.worker);
  }

  /** What the ECS agent on a container instance does: join the cluster, report task and container states, ship its own logs. */
  private grantContainerInstance(role: Role): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [
          'ecs:DeregisterContainerInstance',
          'ecs:RegisterContainerInstance',
          'ecs:SubmitAttachmentStateChanges',
          'ecs:SubmitContainerStateChange',
          'ecs:SubmitTaskStateChange',
        ],
        resources: [this.cluster.clusterArn],
      }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['ecs:Poll', 'ecs:StartTelemetrySession'],
        resources: ['*'],
        conditions: { ArnEquals: { 'ecs:cluster': this.cluster.clusterArn } },
      }),
    );
    // Not scoped by resource in IAM.
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['ecs:DiscoverPollEndpoint', 'ecr:GetAuthorizationToken', 'logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: ['*'],
      }),
    );
  }

  private capacityProvider(
    machineType: MachineType,
    names: SluiceNames,
    role: IRole,
    securityGroup: SecurityGroup,
    options: { publicInstances: boolean; warmPool: number },
  ): AsgCapacityProvider {
    const { publicInstances } = options;
    const capacity = MACHINE_CAPACITY[machineType];
    const warmPool = Math.min(options.warmPool, capacity.maxInstances);
    const gpu = isGpuCapacity(machineType);
    const id = machineType.replace(/[^A-Za-z0-9]/g, '');
    const userData = UserData.forLinux();
    const agentSetting = (setting: string) => `echo ${setting} >> /etc/ecs/ecs.config`;
    // Tasks never reach the instance metadata service (and the instance's role): awsvpc tasks
    // are cut off by the ECS agent, bridge-mode ones by the hop limit of 1 below (IMDSv2 only).
    userData.addCommands(agentSetting('ECS_AWSVPC_BLOCK_IMDS=true'));
    // Bridge-mode tasks get their task role from the ECS agent only when asked for.
    if (publicInstances) userData.addCommands(agentSetting('ECS_ENABLE_TASK_IAM_ROLE=true'));
    userData.addCommands(...IMAGE_CACHE_SETTINGS.map(agentSetting));
    // An instance launched into the warm pool boots, then stops: its agent must not join the
    // cluster (and be offered tasks) until the instance leaves the pool.
    if (warmPool > 0) userData.addCommands(agentSetting('ECS_WARM_POOLS_CHECK=true'));
    const { sizeGiB, throughputMiBps, iops } = capacity.rootVolume;
    const launchTemplate = new LaunchTemplate(this, `${id}LaunchTemplate`, {
      instanceType: new InstanceType(capacity.instanceType),
      // The ECS-optimized Amazon Linux 2023 AMI; for GPU groups its GPU variant (NVIDIA driver
      // and container toolkit). Amazon Linux 2's ECS AMIs leave support on 2026-06-30.
      machineImage: EcsOptimizedImage.amazonLinux2023(gpu ? AmiHardwareType.GPU : AmiHardwareType.STANDARD),
      userData,
      role,
      securityGroup,
      requireImdsv2: true,
      httpPutResponseHopLimit: 1,
      blockDevices: [
        {
          deviceName: '/dev/xvda',
          volume: BlockDeviceVolume.ebs(sizeGiB, { volumeType: EbsDeviceVolumeType.GP3, encrypted: true, throughput: throughputMiBps, iops }),
        },
      ],
    });
    const group = new AutoScalingGroup(this, `${id}Instances`, {
      vpc: this.vpc,
      vpcSubnets: { subnetType: publicInstances ? SubnetType.PUBLIC : SubnetType.PRIVATE_WITH_EGRESS },
      launchTemplate,
      // No instance while no task asks for one.
      minCapacity: 0,
      maxCapacity: capacity.maxInstances,
    });
    // Exactly `warmPool` instances, whatever the group runs (without the maximum, the pool would
    // be the group's maximum less its desired count). ECS does not support returning instances
    // to the pool on scale-in (ReuseOnScaleIn), so their pulled images go with them.
    if (warmPool > 0) group.addWarmPool({ minSize: warmPool, maxGroupPreparedCapacity: warmPool, poolState: PoolState.STOPPED });
    acknowledge(group, [
      {
        id: 'AwsSolutions-AS3',
        reason:
          'ECS managed scaling (the capacity provider) sizes the group from its tasks; its launches and terminations are listed by `aws autoscaling describe-scaling-activities` and in the ECS service events, and no one would subscribe to a notification topic.',
      },
    ]);
    const provider = new AsgCapacityProvider(this, `${id}CapacityProvider`, {
      autoScalingGroup: group,
      capacityProviderName: names.capacityProvider(machineType),
      enableManagedScaling: true,
      enableManagedTerminationProtection: true,
      targetCapacityPercent: 100,
      // "Amazon Linux" user data (ECS_CLUSTER in /etc/ecs/ecs.config): AL2023 reads it as AL2 did.
      machineImageType: MachineImageType.AMAZON_LINUX_2,
    });
    this.cluster.addAsgCapacityProvider(provider);
    return provider;
  }
}
