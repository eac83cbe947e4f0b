// AWS's us-east-1 on-demand list prices the cost model uses, in US dollars, each with where it
// was read. Looked up on 2026-11-27; AWS changes them without notice, so re-check before quoting.

/** When the prices below were taken. */
export const PRICES_TAKEN = '2026-11-27';

export interface Price {
  /** Dollars per `unit`. */
  usd: number;
  unit: string;
  source: string;
  note?: string;
}

const LAMBDA = 'https://aws.amazon.com/lambda/pricing/ (rates are drawn in by script there; read from https://cloudchipr.com/blog/aws-lambda-pricing)';
const VPC = 'https://aws.amazon.com/vpc/pricing/ (read from https://cloudburn.io/blog/aws-nat-gateway-pricing)';
const CLOUDWATCH = 'https://aws.amazon.com/cloudwatch/pricing/';

export const AWS_PRICES = {
  /** The API is an HTTP API (AWS::ApiGatewayV2), not a REST API: $1.00, not $3.50, per million. */
  httpApiRequest: {
    usd: 1.0 / 1e6,
    unit: 'request (first 300 M a month; metered in 512 KB increments)',
    source: 'https://aws.amazon.com/api-gateway/pricing/ (read from https://awsforengineers.com/blog/aws-api-gateway-pricing-explained)',
  },
  lambdaRequest: { usd: 0.2 / 1e6, unit: 'invocation', source: LAMBDA },
  /** infra/lambdaFunction.ts deploys arm64. */
  lambdaGbSecond: { usd: 0.0000133334, unit: 'GB-second, arm64 (first 7.5 billion a month)', source: LAMBDA },
  dynamoDbWriteUnit: {
    usd: 0.625 / 1e6,
    unit: 'write request unit, on demand',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/ (read from https://airbyte.com/data-engineering-resources/dynamodb-pricing)',
    note: 'after the 50% cut of 2024-11-01 (was $1.25 a million)',
  },
  dynamoDbReadUnit: {
    usd: 0.125 / 1e6,
    unit: 'read request unit, on demand',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/ (read from https://airbyte.com/data-engineering-resources/dynamodb-pricing)',
    note: 'after the 50% cut of 2024-11-01 (was $0.25 a million)',
  },
  sqsRequest: {
    usd: 0.4 / 1e6,
    unit: 'standard queue request, each 64 KB of payload a request',
    source: 'https://aws.amazon.com/sqs/pricing/ (read from https://cloudburn.io/blog/amazon-sqs-pricing)',
  },
  stepFunctionsTransition: { usd: 0.025 / 1000, unit: 'Standard workflow state transition', source: 'https://aws.amazon.com/step-functions/pricing/' },
  s3WriteRequest: {
    usd: 0.005 / 1000,
    unit: 'S3 Standard PUT, COPY, POST or LIST request',
    source: 'https://aws.amazon.com/s3/pricing/ (read from https://c3x.dev/blog/s3-request-fees-explained)',
  },
  s3ReadRequest: {
    usd: 0.0004 / 1000,
    unit: 'S3 Standard GET, HEAD or other request (DELETE free)',
    source: 'https://aws.amazon.com/s3/pricing/ (read from https://c3x.dev/blog/s3-request-fees-explained)',
  },
  logsIngestedGb: {
    usd: 0.5,
    unit: 'GB ingested into CloudWatch Logs (standard class)',
    source: `${CLOUDWATCH} (read from https://www.factualminds.com/blog/amazon-cloudwatch-pricing-metrics-logs-alarms-dashboards/)`,
  },
  natGatewayHour: { usd: 0.045, unit: 'NAT gateway-hour', source: VPC },
  natGatewayGb: { usd: 0.045, unit: 'GB through a NAT gateway', source: VPC },
  publicIpv4Hour: {
    usd: 0.005,
    unit: 'public IPv4 address-hour (since 2024-02-01; an EIP on a NAT gateway too)',
    source: 'https://aws.amazon.com/vpc/pricing/ (read from https://www.doit.com/aws-public-ipv4-price-increase-the-complete-guide/)',
  },
  alarmMonth: {
    usd: 0.1,
    unit: 'standard-resolution CloudWatch alarm-month (first 10 free)',
    source: `${CLOUDWATCH} (read from https://c3x.dev/resources/aws/aws_cloudwatch_metric_alarm)`,
  },
  interfaceEndpointHour: {
    usd: 0.01,
    unit: 'interface VPC endpoint-hour, per AZ',
    source: 'https://aws.amazon.com/privatelink/pricing/',
    note: 'not found in the sources searched; AWS’s long-standing figure, unverified. Gateway endpoints (DynamoDB, S3) are free',
  },
} satisfies Record<string, Price>;

export type AwsPrices = { [K in keyof typeof AWS_PRICES]: Price };

/** The hours AWS's monthly estimates count. */
export const HOURS_PER_MONTH = 730;
