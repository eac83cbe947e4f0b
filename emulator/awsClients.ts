import { ApplicationAutoScalingClient } from '@aws-sdk/client-application-auto-scaling';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { CodeBuildClient } from '@aws-sdk/client-codebuild';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ECSClient } from '@aws-sdk/client-ecs';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';

export const EMULATED_ACCOUNT = '123456789012';
export const EMULATED_REGION = 'us-east-1';
export const EMULATED_CREDENTIALS = { accessKeyId: 'emulated', secretAccessKey: 'emulated' };

/** The environment that points a process's AWS SDK at the emulated services. */
export function awsEnvironment(awsEndpoint: string, dynamoDbEndpoint: string): Record<string, string> {
  return {
    AWS_REGION: EMULATED_REGION,
    AWS_DEFAULT_REGION: EMULATED_REGION,
    AWS_ACCESS_KEY_ID: EMULATED_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: EMULATED_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL: awsEndpoint,
    AWS_ENDPOINT_URL_DYNAMODB: dynamoDbEndpoint,
  };
}

/** The emulation's own clients: straight to moto (and dynalite), so its calls are not observed as the product's. */
export function awsClients(motoEndpoint: string, dynamoDbEndpoint: string) {
  const common = { region: EMULATED_REGION, credentials: EMULATED_CREDENTIALS, endpoint: motoEndpoint };
  return {
    sqs: new SQSClient(common),
    s3: new S3Client({ ...common, forcePathStyle: true }),
    ecs: new ECSClient(common),
    autoScaling: new ApplicationAutoScalingClient(common),
    cloudWatch: new CloudWatchClient(common),
    logs: new CloudWatchLogsClient(common),
    codeBuild: new CodeBuildClient(common),
    sfn: new SFNClient(common),
    dynamoDb: new DynamoDBClient({ ...common, endpoint: dynamoDbEndpoint }),
  };
}

export type AwsClients = ReturnType<typeof awsClients>;
