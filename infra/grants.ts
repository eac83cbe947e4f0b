import { Stack } from 'aws-cdk-lib/core';
import { Effect, PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import type { TableId } from '../shared/adapters/aws/dynamodb/tables.js';
import { arns, type SluiceNames } from './names.js';
import { bucketAccess, type Permissions } from './routePermissions.js';

const TABLE_READ = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:Scan', 'dynamodb:ConditionCheckItem', 'dynamodb:DescribeTable'];
const TABLE_WRITE = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
const QUEUE_ACTIONS = {
  send: ['sqs:SendMessage', 'sqs:GetQueueUrl'],
  consume: ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueUrl', 'sqs:GetQueueAttributes'],
  create: ['sqs:CreateQueue', 'sqs:GetQueueUrl', 'sqs:GetQueueAttributes', 'sqs:SetQueueAttributes'],
} as const;

/** What the deployer may pass to ECS: the worker tasks' roles. */
export interface DeployRoles {
  taskRole: IRole;
  executionRole: IRole;
}

/**
 * IAM statements for a permission set, on the deployment's named resources. Data actions
 * (DynamoDB, S3, SQS) always name their resources; the few `*` resources are actions that
 * IAM cannot scope (ecs:RegisterTaskDefinition, Application Auto Scaling).
 */
export function permissionStatements(scope: IConstruct, names: SluiceNames, permissions: Permissions, deployRoles?: DeployRoles): PolicyStatement[] {
  const statements: PolicyStatement[] = [];
  const allow = (actions: readonly string[], resources: string[], conditions?: Record<string, unknown>) =>
    statements.push(new PolicyStatement({ effect: Effect.ALLOW, actions: [...actions], resources, conditions }));

  const tables = Object.entries(permissions.tables ?? {}) as [TableId, 'read' | 'readWrite'][];
  for (const access of ['read', 'readWrite'] as const) {
    const selected = tables.filter(([, level]) => level === access).map(([id]) => arns.table(scope, names.table(id)));
    if (selected.length === 0) continue;
    // The table and its indexes (queries by organization, function, version, ...).
    allow(access === 'read' ? TABLE_READ : [...TABLE_READ, ...TABLE_WRITE], selected.flatMap((arn) => [arn, `${arn}/index/*`]));
  }

  const bucketArn = arns.bucket(scope, names.bucket);
  const { read, write } = bucketAccess(permissions);
  if (read.length > 0) {
    allow(['s3:GetObject'], read.map((area) => `${bucketArn}/${area}*`));
    // Output files are found by listing their job's prefix (the key ends with the file's name).
    allow(['s3:ListBucket'], [bucketArn], { StringLike: { 's3:prefix': read.map((area) => `${area}*`) } });
  }
  if (write.length > 0) allow(['s3:PutObject', 's3:AbortMultipartUpload'], write.map((area) => `${bucketArn}/${area}*`));
  // A spilled copy whose item lost its conditional write is removed again.
  if (write.includes('spill/')) allow(['s3:DeleteObject'], [`${bucketArn}/spill/*`]);

  const queueActions = [...new Set((permissions.queues ?? []).flatMap((use) => QUEUE_ACTIONS[use]))];
  if (queueActions.length > 0) allow(queueActions, [arns.queue(scope, names.versionQueuePattern)]);
  // A new queue's redrive policy names the DLQ by ARN, which the deployer reads by name.
  if (permissions.queues?.includes('create')) allow(['sqs:GetQueueUrl', 'sqs:GetQueueAttributes'], [arns.queue(scope, names.deadLetterQueue)]);

  if (permissions.startDeliveries) allow(['states:StartExecution'], [arns.stateMachine(scope, names.stateMachine)]);
  if (permissions.describeDeliveries) allow(['states:DescribeExecution'], [arns.executions(scope, names.stateMachine)]);
  if (permissions.startBuilds) allow(['codebuild:StartBuild', 'codebuild:BatchGetBuilds'], [arns.project(scope, names.project)]);
  if (permissions.readBuildLogs) allow(['logs:GetLogEvents'], [arns.logGroup(scope, `/aws/codebuild/${names.project}`)]);

  const services = arns.ecsServices(scope, names.cluster, 'v-*');
  if (permissions.ecs?.includes('describe')) allow(['ecs:DescribeServices'], [services]);
  if (permissions.ecs?.includes('protect')) {
    const tasks = Stack.of(scope).formatArn({ service: 'ecs', resource: 'task', resourceName: `${names.cluster}/*` });
    allow(['ecs:UpdateTaskProtection', 'ecs:GetTaskProtection'], [tasks]);
  }
  if (permissions.ecs?.includes('stop')) {
    allow(['ecs:UpdateService'], [services], { ArnEquals: { 'ecs:cluster': arns.cluster(scope, names.cluster) } });
    // Application Auto Scaling cannot scope a scalable target by resource in IAM.
    allow(['application-autoscaling:RegisterScalableTarget'], ['*']);
  }
  if (permissions.ecs?.includes('scale')) {
    // Application Auto Scaling cannot scope a scalable target or policy by resource in IAM; the
    // alarms are the versions' queues' (`<prefix>v-<version>-backlog`, `-idle`).
    allow(['application-autoscaling:RegisterScalableTarget', 'application-autoscaling:PutScalingPolicy'], ['*']);
    allow(['cloudwatch:PutMetricAlarm'], [arns.alarms(scope, names.versionQueuePattern)]);
  }
  if (permissions.ecs?.includes('deploy')) {
    if (!deployRoles) throw new Error('ECS deploy permissions need the worker task roles to pass');
    const clusterCondition = { ArnEquals: { 'ecs:cluster': arns.cluster(scope, names.cluster) } };
    allow(['ecs:CreateService', 'ecs:UpdateService', 'ecs:DescribeServices'], [services], clusterCondition);
    // Registering a task definition cannot be scoped by resource in IAM.
    allow(['ecs:RegisterTaskDefinition'], ['*']);
    allow(['iam:PassRole'], [deployRoles.taskRole.roleArn, deployRoles.executionRole.roleArn], { StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } });
    // Scaling on queue depth: a scalable target per service, two step policies and the two
    // alarms on the version's queue (`<prefix>v-<version>-backlog`, `-idle`) that run them; the
    // first time, Application Auto Scaling's service-linked role for ECS is created too.
    allow(
      ['application-autoscaling:RegisterScalableTarget', 'application-autoscaling:PutScalingPolicy', 'application-autoscaling:DescribeScalableTargets', 'application-autoscaling:DescribeScalingPolicies'],
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
  return statements;
}

/** Adds a permission set to a role's policy. */
export function grantPermissions(role: IRole, names: SluiceNames, permissions: Permissions, deployRoles?: DeployRoles): void {
  for (const statement of permissionStatements(role, names, permissions, deployRoles)) role.addToPrincipalPolicy(statement);
}
