import { CreateLogGroupCommand } from '@aws-sdk/client-cloudwatch-logs';
import { CreateProjectCommand } from '@aws-sdk/client-codebuild';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { CreateSecurityGroupCommand, CreateSubnetCommand, CreateVpcCommand } from '@aws-sdk/client-ec2';
import { CreateCapacityProviderCommand, CreateClusterCommand } from '@aws-sdk/client-ecs';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { CreateStateMachineCommand } from '@aws-sdk/client-sfn';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import type { AwsClients } from './awsClients.js';
import type { CloudAssembly } from './cloudAssembly.js';
import type { Resolver } from './intrinsics.js';

/**
 * Does CloudFormation's part: creates in moto and dynalite the resources the templates declare
 * that the service calls by name (tables, the DLQ, the bucket, the cluster and its capacity
 * providers, the state machine, the build project, log groups) and the network the tasks
 * are placed in (VPC, subnets, security groups, whose moto ids go to `physicalIds`), with the
 * templates' properties. IAM and the Lambdas themselves are the emulation's own.
 */
export async function provision(assembly: CloudAssembly, resolve: Resolver, clients: AwsClients, physicalIds: Map<string, string>): Promise<void> {
  // The network first: ECS checks the subnets and security groups a service names, and their
  // ids are moto's, known only once created.
  for (const { stack, logicalId, resource } of assembly.ofType('AWS::EC2::VPC')) {
    const { Vpc } = await clients.ec2.send(new CreateVpcCommand({ CidrBlock: resolve(stack, resource.Properties?.CidrBlock) }));
    physicalIds.set(logicalId, Vpc?.VpcId as string);
  }
  for (const { stack, logicalId, resource } of assembly.ofType('AWS::EC2::Subnet')) {
    const props = resolve(stack, resource.Properties ?? {}) as Record<string, any>;
    const { Subnet } = await clients.ec2.send(new CreateSubnetCommand({ VpcId: props.VpcId, CidrBlock: props.CidrBlock }));
    physicalIds.set(logicalId, Subnet?.SubnetId as string);
  }
  for (const { stack, logicalId, resource } of assembly.ofType('AWS::EC2::SecurityGroup')) {
    const props = resolve(stack, resource.Properties ?? {}) as Record<string, any>;
    const { GroupId } = await clients.ec2.send(
      new CreateSecurityGroupCommand({ GroupName: `${stack}-${logicalId}`, Description: props.GroupDescription ?? logicalId, VpcId: props.VpcId }),
    );
    physicalIds.set(logicalId, GroupId as string);
  }
  const each = async (type: string, create: (props: Record<string, any>, logicalId: string) => Promise<unknown>) => {
    for (const { stack, logicalId, resource } of assembly.ofType(type))
      await create(resolve(stack, resource.Properties ?? {}) as Record<string, any>, logicalId);
  };
  await each('AWS::DynamoDB::Table', (props) =>
    clients.dynamoDb.send(
      new CreateTableCommand({
        TableName: props.TableName,
        KeySchema: props.KeySchema,
        AttributeDefinitions: props.AttributeDefinitions,
        GlobalSecondaryIndexes: props.GlobalSecondaryIndexes,
        BillingMode: props.BillingMode,
      }),
    ),
  );
  await each('AWS::SQS::Queue', (props) =>
    clients.sqs.send(
      new CreateQueueCommand({
        QueueName: props.QueueName,
        Attributes: Object.fromEntries(
          Object.entries({ MessageRetentionPeriod: props.MessageRetentionPeriod, VisibilityTimeout: props.VisibilityTimeout }).flatMap(([name, value]) =>
            value === undefined ? [] : [[name, String(value)]],
          ),
        ),
      }),
    ),
  );
  await each('AWS::S3::Bucket', (props) => clients.s3.send(new CreateBucketCommand({ Bucket: props.BucketName })));
  await each('AWS::ECS::Cluster', (props) => clients.ecs.send(new CreateClusterCommand({ clusterName: props.ClusterName })));
  await each('AWS::ECS::CapacityProvider', (props, logicalId) =>
    clients.ecs.send(
      new CreateCapacityProviderCommand({
        name: props.Name ?? logicalId,
        autoScalingGroupProvider: { autoScalingGroupArn: `arn:aws:autoscaling:emulated:autoScalingGroup:${logicalId}` },
      }),
    ),
  );
  await each('AWS::StepFunctions::StateMachine', (props, logicalId) =>
    clients.sfn.send(new CreateStateMachineCommand({ name: props.StateMachineName ?? logicalId, definition: props.DefinitionString, roleArn: props.RoleArn })),
  );
  await each('AWS::CodeBuild::Project', (props) =>
    clients.codeBuild.send(
      new CreateProjectCommand({
        name: props.Name,
        // moto insists on a source location that CodeBuild itself does not need for NO_SOURCE.
        source: { type: 'S3', location: 'emulated/no-source', buildspec: props.Source?.BuildSpec },
        artifacts: { type: 'NO_ARTIFACTS' },
        environment: {
          type: 'LINUX_CONTAINER',
          image: props.Environment?.Image ?? 'emulated',
          computeType: props.Environment?.ComputeType ?? 'BUILD_GENERAL1_MEDIUM',
        },
        serviceRole: props.ServiceRole,
      }),
    ),
  );
  await each('AWS::Logs::LogGroup', (props, logicalId) =>
    clients.logs.send(new CreateLogGroupCommand({ logGroupName: props.LogGroupName ?? logicalId })).catch(() => undefined),
  );
}
