import type { CloudAssembly } from './cloudAssembly.js';

export interface Environment {
  accountId: string;
  region: string;
  /** Attributes only the emulation knows (the API's URL, the function URL); undefined for the rest. */
  attribute?: (logicalId: string, type: string, attribute: string | null) => string | undefined;
}

/** Resolves CloudFormation intrinsic functions (`Ref`, `Fn::GetAtt`, `Fn::Join`, `Fn::Sub`, `Fn::ImportValue`, ...) in a stack's values. */
export type Resolver = (stack: string, value: unknown) => any;

/**
 * What CloudFormation would make of a template's values once deployed: pseudo parameters from
 * the environment, and physical names and ARNs for the resources the templates reference, in
 * the shape AWS gives them (`arn:aws:iam::<account>:role/<name>`, `subnet-...`).
 */
export function createResolver(assembly: CloudAssembly, environment: Environment): Resolver {
  const { accountId, region } = environment;
  const pseudo: Record<string, string> = {
    'AWS::AccountId': accountId,
    'AWS::Region': region,
    'AWS::Partition': 'aws',
    'AWS::URLSuffix': 'amazonaws.com',
    'AWS::NoValue': '',
  };

  const physical = (stack: string, logicalId: string, attribute: string | null): string => {
    if (attribute === null && logicalId in pseudo) return pseudo[logicalId] as string;
    const resource = assembly.stacks[stack]?.Resources[logicalId];
    if (!resource) throw new Error(`${stack} has no resource ${logicalId}`);
    const known = environment.attribute?.(logicalId, resource.Type, attribute);
    if (known !== undefined) return known;
    const props = resource.Properties ?? {};
    const named = (key: string) => (props[key] === undefined ? logicalId : String(resolve(stack, props[key])));
    switch (resource.Type) {
      case 'AWS::IAM::Role':
        return attribute === 'Arn' ? `arn:aws:iam::${accountId}:role/${logicalId}` : logicalId;
      case 'AWS::Lambda::Function':
        return attribute === 'Arn' ? `arn:aws:lambda:${region}:${accountId}:function:${named('FunctionName')}` : named('FunctionName');
      case 'AWS::EC2::Subnet':
        return `subnet-${logicalId.toLowerCase()}`;
      case 'AWS::EC2::SecurityGroup':
        return `sg-${logicalId.toLowerCase()}`;
      case 'AWS::Logs::LogGroup':
        return attribute === 'Arn' ? `arn:aws:logs:${region}:${accountId}:log-group:${named('LogGroupName')}:*` : named('LogGroupName');
      case 'AWS::S3::Bucket':
        return attribute === 'Arn' ? `arn:aws:s3:::${named('BucketName')}` : named('BucketName');
      case 'AWS::ECS::Cluster':
        return named('ClusterName');
      case 'AWS::CodeBuild::Project':
        return attribute === 'Arn' ? `arn:aws:codebuild:${region}:${accountId}:project/${named('Name')}` : named('Name');
      case 'AWS::DynamoDB::Table':
        return attribute === 'Arn' ? `arn:aws:dynamodb:${region}:${accountId}:table/${named('TableName')}` : named('TableName');
      case 'AWS::SQS::Queue':
        if (attribute === 'Arn') return `arn:aws:sqs:${region}:${accountId}:${named('QueueName')}`;
        return attribute === 'QueueName' ? named('QueueName') : `https://sqs.${region}.amazonaws.com/${accountId}/${named('QueueName')}`;
      case 'AWS::ECR::Repository':
        return attribute === 'Arn' ? `arn:aws:ecr:${region}:${accountId}:repository/${named('RepositoryName')}` : named('RepositoryName');
      case 'AWS::StepFunctions::StateMachine':
        return `arn:aws:states:${region}:${accountId}:stateMachine:${named('StateMachineName')}`;
      default:
        return attribute === null ? logicalId : `${logicalId}.${attribute}`;
    }
  };

  const exported = (name: string): { stack: string; value: unknown } => {
    for (const [stack, template] of Object.entries(assembly.stacks)) {
      for (const output of Object.values(template.Outputs ?? {})) if (output.Export?.Name === name) return { stack, value: output.Value };
    }
    throw new Error(`No stack exports ${name}`);
  };

  const substitute = (stack: string, text: string, variables: Record<string, unknown>) =>
    text.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
      if (name in variables) return String(resolve(stack, variables[name]));
      const [logicalId, attribute] = name.split('.') as [string, string | undefined];
      return physical(stack, logicalId, attribute ?? null);
    });

  function resolve(stack: string, value: unknown): any {
    if (Array.isArray(value)) return value.map((item) => resolve(stack, item));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Record<string, unknown>);
    const [key, argument] = entries[0] ?? [];
    if (entries.length === 1 && key !== undefined) {
      const args = argument as any;
      switch (key) {
        case 'Ref':
          return physical(stack, args as string, null);
        case 'Fn::GetAtt':
          return physical(stack, args[0] as string, args[1] as string);
        case 'Fn::Join':
          return (resolve(stack, args[1]) as unknown[]).join(args[0] as string);
        case 'Fn::Sub':
          return typeof args === 'string' ? substitute(stack, args, {}) : substitute(stack, args[0] as string, args[1] as Record<string, unknown>);
        case 'Fn::Select':
          return (resolve(stack, args[1]) as unknown[])[Number(resolve(stack, args[0]))];
        case 'Fn::Split':
          return String(resolve(stack, args[1])).split(args[0] as string);
        case 'Fn::ImportValue': {
          const source = exported(String(resolve(stack, args)));
          return resolve(source.stack, source.value);
        }
      }
    }
    return Object.fromEntries(entries.map(([name, item]) => [name, resolve(stack, item)]));
  }

  return resolve;
}
