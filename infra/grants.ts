import { Stack } from 'aws-cdk-lib/core';
import { Effect, PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import type { NagPackSuppression } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { BUDGET_MARK_ATTRIBUTES, TABLES, type TableId } from '../shared/adapters/aws/dynamodb/tables.js';
import { ANY_RESOURCE, acknowledge, wildcardArn, wildcardObjects } from './nag.js';
import { arns, type SluiceNames } from './names.js';
import { bucketAccess, type BucketArea, type Permissions, type TableAccess } from './routePermissions.js';

const TABLE_INDEXES = (id: TableId) => TABLES[id].globalSecondaryIndexes.map((index) => index.indexName);

const TABLE_READ = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:Scan', 'dynamodb:ConditionCheckItem', 'dynamodb:DescribeTable'];
const TABLE_WRITE = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
const QUEUE_ACTIONS = {
  send: ['sqs:SendMessage', 'sqs:GetQueueUrl'],
  consume: ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueUrl', 'sqs:GetQueueAttributes'],
  create: ['sqs:CreateQueue', 'sqs:GetQueueUrl', 'sqs:GetQueueAttributes', 'sqs:SetQueueAttributes'],
  depth: ['sqs:GetQueueUrl', 'sqs:GetQueueAttributes'],
} as const;

/** What the deployer may pass to ECS: the worker tasks' roles. */
export interface DeployRoles {
  taskRole: IRole;
  executionRole: IRole;
}

/** Why a key prefix is as narrow as a grant on the bucket's objects can be (infra/routePermissions.ts BucketArea). */
const BUCKET_AREAS: Record<BucketArea, string> = {
  'bundles/': 'bundles/<version id>.tar.gz',
  'uploads/': 'uploads/<organization>/<upload id>',
  'files/': 'files/<job id>/<index>/<name>',
  'spill/': 'spill/<job id>/...',
};

/** A permission set as IAM statements, and the reasons for its wildcard resources (cdk-nag IAM5). */
export interface PermissionPolicy {
  statements: PolicyStatement[];
  wildcards: NagPackSuppression[];
}

/**
 * IAM statements for a permission set, on the deployment's named resources. Data actions
 * (DynamoDB, S3, SQS) always name their resources; the few `*` resources are actions that
 * IAM cannot scope (ecs:RegisterTaskDefinition, Application Auto Scaling). Every resource
 * pattern with a wildcard comes with the reason it cannot be narrower.
 */
export function permissionPolicy(scope: IConstruct, names: SluiceNames, permissions: Permissions, deployRoles?: DeployRoles): PermissionPolicy {
  const statements: PolicyStatement[] = [];
  const wildcards: NagPackSuppression[] = [];
  const allow = (actions: readonly string[], resources: string[], conditions?: Record<string, unknown>) =>
    statements.push(new PolicyStatement({ effect: Effect.ALLOW, actions: [...actions], resources, conditions }));
  const because = (appliesTo: NagPackSuppression['appliesTo'], reason: string) => wildcards.push({ id: 'AwsSolutions-IAM5', reason, appliesTo });

  const tables = Object.entries(permissions.tables ?? {}) as [TableId, TableAccess][];
  for (const access of ['read', 'readWrite'] as const) {
    // markBudgetWarned reads as `read` does, and adds its one update below.
    const selected = tables.filter(([, level]) => level === access || (access === 'read' && level === 'markBudgetWarned'));
    if (selected.length === 0) continue;
    // The table and each of its indexes by name (queries by organization, function, version, ...).
    const resources = selected.flatMap(([id]) => {
      const arn = arns.table(scope, names.table(id));
      return [arn, ...TABLE_INDEXES(id).map((index) => `${arn}/index/${index}`)];
    });
    allow(access === 'read' ? TABLE_READ : [...TABLE_READ, ...TABLE_WRITE], resources);
  }
  // An UpdateItem that may touch only the key, the id its condition checks, and the mark
  // (IAM's fine-grained access), returning no other attribute.
  const marking = tables.filter(([, level]) => level === 'markBudgetWarned').map(([id]) => arns.table(scope, names.table(id)));
  if (marking.length > 0)
    allow(['dynamodb:UpdateItem'], marking, {
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': BUDGET_MARK_ATTRIBUTES },
      StringEqualsIfExists: { 'dynamodb:ReturnValues': ['NONE', 'UPDATED_OLD', 'UPDATED_NEW'] },
    });

  const bucketArn = arns.bucket(scope, names.bucket);
  const { read, write } = bucketAccess(permissions);
  for (const area of new Set([...read, ...write])) {
    because(
      [wildcardObjects(names.prefix, `${area}*`)],
      `Objects of the artifacts bucket under ${area}: their keys (${BUCKET_AREAS[area]}) are made at run time, so the key prefix is the narrowest grant.`,
    );
  }
  if (read.length > 0) {
    allow(
      ['s3:GetObject'],
      read.map((area) => `${bucketArn}/${area}*`),
    );
    // Output files are found by listing their job's prefix (the key ends with the file's name).
    allow(['s3:ListBucket'], [bucketArn], { StringLike: { 's3:prefix': read.map((area) => `${area}*`) } });
  }
  if (write.length > 0)
    allow(
      ['s3:PutObject', 's3:AbortMultipartUpload'],
      write.map((area) => `${bucketArn}/${area}*`),
    );
  // A spilled copy whose item lost its conditional write is removed again.
  if (write.includes('spill/')) allow(['s3:DeleteObject'], [`${bucketArn}/spill/*`]);

  const queueActions = [...new Set((permissions.queues ?? []).flatMap((use) => QUEUE_ACTIONS[use]))];
  if (queueActions.length > 0) {
    allow(queueActions, [arns.queue(scope, names.versionQueuePattern)]);
    because(
      [wildcardArn('sqs', names.versionQueuePattern)],
      `The versions' queues (${names.prefix}v-<version id>) are created by the service when a version is deployed, not by a stack: only their name pattern exists beforehand.`,
    );
  }
  // A new queue's redrive policy names the DLQ by ARN, which the deployer reads by name.
  if (permissions.queues?.includes('create')) allow(['sqs:GetQueueUrl', 'sqs:GetQueueAttributes'], [arns.queue(scope, names.deadLetterQueue)]);

  if (permissions.startDeliveries) allow(['states:StartExecution'], [arns.stateMachine(scope, names.stateMachine)]);
  if (permissions.describeDeliveries) {
    allow(['states:DescribeExecution'], [arns.executions(scope, names.stateMachine)]);
    because(
      [wildcardArn('states', `execution:${names.stateMachine}:*`)],
      'Executions of the webhook state machine are named per delivery when started: the pattern covers that one state machine’s executions only.',
    );
  }
  if (permissions.startBuilds) allow(['codebuild:StartBuild', 'codebuild:BatchGetBuilds'], [arns.project(scope, names.project)]);
  if (permissions.readBuildLogs) {
    allow(['logs:GetLogEvents'], [arns.logGroup(scope, `/aws/codebuild/${names.project}`)]);
    because(
      [wildcardArn('logs', `log-group:/aws/codebuild/${names.project}:*`)],
      'The image build project’s log group: CodeBuild writes one log stream per build, named at run time.',
    );
  }

  const services = arns.ecsServices(scope, names.cluster, 'v-*');
  const scaling = (actions: string) =>
    because(
      [ANY_RESOURCE],
      `${actions}: a scalable target or scaling policy is known by the ids Application Auto Scaling generates when it is registered, so IAM cannot name a version's before it exists.`,
    );
  if (permissions.ecs?.some((use) => ['describe', 'stop', 'deploy', 'wake'].includes(use))) {
    because(
      [wildcardArn('ecs', `service/${names.cluster}/v-*`)],
      `The versions' ECS services (v-<version id>) of the ${names.cluster} cluster are created by the service when a version is deployed, not by a stack.`,
    );
  }
  if (permissions.ecs?.includes('describe')) allow(['ecs:DescribeServices'], [services]);
  if (permissions.ecs?.includes('protect')) {
    const tasks = Stack.of(scope).formatArn({ service: 'ecs', resource: 'task', resourceName: `${names.cluster}/*` });
    allow(['ecs:UpdateTaskProtection', 'ecs:GetTaskProtection'], [tasks]);
    because(
      [wildcardArn('ecs', `task/${names.cluster}/*`)],
      `A worker protects its own task from scale-in; task ids are assigned by ECS at launch, so the ${names.cluster} cluster's tasks are the narrowest resource.`,
    );
  }
  if (permissions.ecs?.includes('wake')) {
    allow(['ecs:DescribeServices', 'ecs:UpdateService'], [services], { ArnEquals: { 'ecs:cluster': arns.cluster(scope, names.cluster) } });
    // Whether a version is held at zero: its scalable target's maximum.
    allow(['application-autoscaling:DescribeScalableTargets'], ['*']);
    scaling('application-autoscaling:DescribeScalableTargets');
  }
  if (permissions.ecs?.includes('stop')) {
    allow(['ecs:UpdateService'], [services], { ArnEquals: { 'ecs:cluster': arns.cluster(scope, names.cluster) } });
    // Application Auto Scaling cannot scope a scalable target by resource in IAM.
    allow(['application-autoscaling:RegisterScalableTarget'], ['*']);
    scaling('application-autoscaling:RegisterScalableTarget');
  }
  const alarms = () =>
    because(
      [wildcardArn('cloudwatch', `alarm:${names.versionQueuePattern}`)],
      `The versions' scaling alarms (${names.prefix}v-<version id>-backlog, -idle) are created by the service when a version is deployed or rescaled, not by a stack.`,
    );
  if (permissions.ecs?.includes('scale')) {
    // Application Auto Scaling cannot scope a scalable target or policy by resource in IAM; the
    // alarms are the versions' queues' (`<prefix>v-<version>-backlog`; `-idle` of older deployments, deleted).
    allow(
      [
        'application-autoscaling:RegisterScalableTarget',
        'application-autoscaling:PutScalingPolicy',
        'application-autoscaling:DescribeScalingPolicies',
        'application-autoscaling:DeleteScalingPolicy',
      ],
      ['*'],
    );
    allow(['cloudwatch:PutMetricAlarm', 'cloudwatch:DescribeAlarms', 'cloudwatch:DeleteAlarms'], [arns.alarms(scope, names.versionQueuePattern)]);
    scaling('application-autoscaling:RegisterScalableTarget, PutScalingPolicy, DescribeScalingPolicies and DeleteScalingPolicy');
    alarms();
  }
  if (permissions.ecs?.includes('deploy')) {
    if (!deployRoles) throw new Error('ECS deploy permissions need the worker task roles to pass');
    const clusterCondition = { ArnEquals: { 'ecs:cluster': arns.cluster(scope, names.cluster) } };
    allow(['ecs:CreateService', 'ecs:UpdateService', 'ecs:DescribeServices'], [services], clusterCondition);
    // Registering a task definition cannot be scoped by resource in IAM.
    allow(['ecs:RegisterTaskDefinition'], ['*']);
    because([ANY_RESOURCE], 'ecs:RegisterTaskDefinition supports no resource-level scoping in IAM (a task definition ARN exists only once registered).');
    scaling('application-autoscaling:RegisterScalableTarget, PutScalingPolicy, DeleteScalingPolicy, DescribeScalableTargets and DescribeScalingPolicies');
    alarms();
    allow(['iam:PassRole'], [deployRoles.taskRole.roleArn, deployRoles.executionRole.roleArn], {
      StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' },
    });
    // Scaling on queue depth: a scalable target per service, a step policy and the backlog alarm
    // on the version's queue that runs it (older deployments' scale-in policy and `-idle` alarm
    // are deleted); the first time, Application Auto Scaling's service-linked role for ECS is created too.
    allow(
      [
        'application-autoscaling:RegisterScalableTarget',
        'application-autoscaling:PutScalingPolicy',
        'application-autoscaling:DeleteScalingPolicy',
        'application-autoscaling:DescribeScalableTargets',
        'application-autoscaling:DescribeScalingPolicies',
      ],
      ['*'],
    );
    allow(['cloudwatch:PutMetricAlarm', 'cloudwatch:DescribeAlarms', 'cloudwatch:DeleteAlarms'], [arns.alarms(scope, names.versionQueuePattern)]);
    const scalingRole = Stack.of(scope).formatArn({
      service: 'iam',
      region: '',
      resource: 'role',
      resourceName: 'aws-service-role/ecs.application-autoscaling.amazonaws.com/AWSServiceRoleForApplicationAutoScaling_ECSService',
    });
    allow(['iam:CreateServiceLinkedRole'], [scalingRole], { StringEquals: { 'iam:AWSServiceName': 'ecs.application-autoscaling.amazonaws.com' } });
  }
  return { statements, wildcards };
}

/** IAM statements for a permission set (see permissionPolicy). */
export function permissionStatements(scope: IConstruct, names: SluiceNames, permissions: Permissions, deployRoles?: DeployRoles): PolicyStatement[] {
  return permissionPolicy(scope, names, permissions, deployRoles).statements;
}

/** Adds a permission set to a role's policy, acknowledging its wildcard resources with their reasons. */
export function grantPermissions(role: IRole, names: SluiceNames, permissions: Permissions, deployRoles?: DeployRoles): void {
  const { statements, wildcards } = permissionPolicy(role, names, permissions, deployRoles);
  for (const statement of statements) role.addToPrincipalPolicy(statement);
  acknowledge(role, wildcards);
}
