import { Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib/core';
import { BuildEnvironmentVariableType, BuildSpec, ComputeType, LinuxBuildImage, Project } from 'aws-cdk-lib/aws-codebuild';
import { Repository, TagStatus } from 'aws-cdk-lib/aws-ecr';
import { Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods } from 'aws-cdk-lib/aws-s3';
import { corsPolicy, type CorsPolicy } from '../../shared/http/cors.js';
import { Asset } from 'aws-cdk-lib/aws-s3-assets';
import type { Construct } from 'constructs';
import { UPLOAD_KEPT_DAYS } from '../../shared/domain/upload.js';
import { BASE_IMAGES, DEFAULT_PYTHON_VERSION, PER_BUILD_VARIABLES, imageBuildSpec } from '../buildspec.js';
import { permissionPolicy } from '../grants.js';
import { sluiceFunction } from '../lambdaFunction.js';
import { acknowledge, ANY_RESOURCE, wildcardArnMatching } from '../nag.js';
import type { SluiceNames } from '../names.js';
import { ROLE_PERMISSIONS } from '../routePermissions.js';
import type { ComputeStack } from './computeStack.js';
import { SweeperSchedule } from './sweeperSchedule.js';
import { TaskEvents } from './taskEvents.js';

export interface BuildStackProps extends StackProps {
  names: SluiceNames;
  /** The Lambda bundle folder (bundleLambdaCode()). */
  codeFolder: string;
  /** The worker folder (bundleWorker()): worker.mjs and the Python SDK, copied into every image. */
  workerFolder: string;
  /** The worker tasks' roles, network and logs, which the build-event Lambda deploys versions with. */
  compute: ComputeStack;
  /** The base of URLs the workers hand out (file outputs): the API's URL. */
  publicUrl: string;
  /** Who browsers may call from (default: any origin), as for the API: pages PUT uploads to presigned URLs of the bucket. */
  cors?: CorsPolicy;
}

/** Images kept in the repository: each version's image is tagged with its id. */
export const KEEP_IMAGES = 500;
/** Output files are kept this long. */
export const FILES_EXPIRE_DAYS = 30;

/**
 * From a deployed bundle to a running version: the artifacts bucket (code bundles and output
 * files), the image repository, the CodeBuild project that builds a version's image, and the
 * build-event Lambda that follows the builds (EventBridge) and deploys each built version to
 * ECS: its queue, task definition, service and Application Auto Scaling (the scaling is
 * created at deploy time by the service, not by a stack; this stack grants it). The sweeper
 * lives here too: the last stack deployed, when everything it starts again exists.
 */
export class BuildStack extends Stack {
  readonly bucket: Bucket;
  readonly repository: Repository;
  readonly project: Project;
  readonly buildEventFunction: LambdaFunction;
  readonly buildEventRule: Rule;
  readonly sweeper: SweeperSchedule;
  readonly taskEvents: TaskEvents;

  constructor(scope: Construct, id: string, props: BuildStackProps) {
    super(scope, id, props);
    const { names, compute } = props;

    this.bucket = new Bucket(this, 'Artifacts', {
      bucketName: names.bucket,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      lifecycleRules: [
        { id: 'expire-output-files', prefix: 'files/', expiration: Duration.days(FILES_EXPIRE_DAYS) },
        // A deploy copies its upload to bundles/: the upload is only kept for the deploys of one directory.
        { id: 'expire-uploads', prefix: 'uploads/', expiration: Duration.days(UPLOAD_KEPT_DAYS) },
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      // A page (the dashboard) PUTs a File input to its presigned upload URL and may read outputs; the URL's signature is the permission.
      cors: [
        {
          allowedMethods: [HttpMethods.PUT, HttpMethods.GET],
          allowedOrigins: [...(props.cors ?? corsPolicy()).allowOrigins],
          allowedHeaders: ['*'],
          maxAge: (props.cors ?? corsPolicy()).maxAgeS,
        },
      ],
      // Bundles are the versions' code: the bucket outlives the stack, like the tables.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    acknowledge(this.bucket, [
      {
        id: 'AwsSolutions-S1',
        reason:
          'Objects are reached only through the service’s roles and the presigned URLs they sign; server access logs would need a second bucket (itself unlogged). Where an audit trail is needed, CloudTrail S3 data events cover it.',
      },
    ]);

    this.repository = new Repository(this, 'Images', {
      repositoryName: names.repository,
      imageScanOnPush: true,
      lifecycleRules: [
        { description: 'Untagged layers of rebuilt images', tagStatus: TagStatus.UNTAGGED, maxImageAge: Duration.days(7) },
        // A version whose image expired can no longer start tasks: keep more than the live versions.
        { description: `The last ${KEEP_IMAGES} images`, tagStatus: TagStatus.ANY, maxImageCount: KEEP_IMAGES },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const worker = new Asset(this, 'Worker', { path: props.workerFolder });
    this.project = new Project(this, 'ImageBuild', {
      projectName: names.project,
      description: 'Sluice: builds a function version image and pushes it to ECR',
      // docker build needs a privileged build container.
      environment: { buildImage: LinuxBuildImage.STANDARD_7_0, computeType: ComputeType.MEDIUM, privileged: true },
      environmentVariables: {
        ...Object.fromEntries(PER_BUILD_VARIABLES.map((name) => [name, { value: name === 'PYTHON_VERSION' ? DEFAULT_PYTHON_VERSION : '' }])),
        ...Object.fromEntries(Object.entries(BASE_IMAGES).map(([name, value]) => [name, { value }])),
        WORKER_URI: { value: worker.s3ObjectUrl, type: BuildEnvironmentVariableType.PLAINTEXT },
      },
      buildSpec: BuildSpec.fromObject(imageBuildSpec()),
      timeout: Duration.minutes(60),
    });
    // The worker's one object (Asset.grantRead would allow s3:GetObject*, s3:List* and s3:GetBucket*).
    this.project.addToRolePolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: [worker.bucket.arnForObjects(worker.s3ObjectKey)] }));
    const bundles = permissionPolicy(this, names, { bucket: { read: ['bundles/'] } });
    for (const statement of bundles.statements) this.project.addToRolePolicy(statement);
    this.project.addToRolePolicy(new PolicyStatement({ actions: ['ecr:GetAuthorizationToken'], resources: ['*'] }));
    this.project.addToRolePolicy(
      new PolicyStatement({
        actions: [
          'ecr:BatchCheckLayerAvailability',
          'ecr:InitiateLayerUpload',
          'ecr:UploadLayerPart',
          'ecr:CompleteLayerUpload',
          'ecr:PutImage',
          'ecr:BatchGetImage',
          'ecr:GetDownloadUrlForLayer',
        ],
        resources: [this.repository.repositoryArn],
      }),
    );
    acknowledge(this.project, [
      {
        id: 'AwsSolutions-CB4',
        reason:
          'The project has no artifacts (its output is the image pushed to ECR); CodeBuild encrypts its logs and build environment with the AWS managed key, and a customer key would add a key policy to keep without protecting more.',
      },
    ]);
    if (this.project.role) {
      acknowledge(this.project.role, [
        ...bundles.wildcards,
        {
          id: 'AwsSolutions-IAM5',
          reason: 'ecr:GetAuthorizationToken takes no resource in IAM (the push actions are held to the function repository).',
          appliesTo: [ANY_RESOURCE],
        },
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'CDK’s grants to a CodeBuild project’s role: log streams of its own log group (/aws/codebuild/<project>:*, one stream per build) and its own report groups (<project>-*), named at run time.',
          appliesTo: [
            wildcardArnMatching('logs', 'log-group:\\/aws\\/codebuild\\/<ImageBuild[0-9A-F]+>:\\*'),
            wildcardArnMatching('codebuild', 'report-group\\/<ImageBuild[0-9A-F]+>-\\*'),
          ],
        },
      ]);
    }

    this.buildEventFunction = sluiceFunction(this, 'BuildEvents', {
      names,
      codeFolder: props.codeFolder,
      entry: 'onBuildEvent',
      description: 'Sluice: follows image builds and deploys built versions to ECS',
      timeout: Duration.minutes(5),
      environment: {
        SLUICE_EXECUTION_ROLE_ARN: compute.executionRole.roleArn,
        SLUICE_TASK_ROLE_ARN: compute.taskRole.roleArn,
        SLUICE_LOG_GROUP: compute.logGroup.logGroupName,
        // Empty without a NAT: tasks then share their instance's network (bridge mode).
        SLUICE_SUBNETS: compute.taskSubnets.map((subnet) => subnet.subnetId).join(','),
        SLUICE_SECURITY_GROUPS: compute.taskSubnets.length > 0 ? compute.taskSecurityGroup.securityGroupId : '',
        SLUICE_PUBLIC_URL: props.publicUrl,
      },
      permissions: ROLE_PERMISSIONS.buildEvents,
      deployRoles: { taskRole: compute.taskRole, executionRole: compute.executionRole },
    });

    this.buildEventRule = new Rule(this, 'BuildEventRule', {
      description: "Sluice: the image builds' phase and state changes",
      eventPattern: {
        source: ['aws.codebuild'],
        detailType: ['CodeBuild Build Phase Change', 'CodeBuild Build State Change'],
        detail: { 'project-name': [this.project.projectName] },
      },
      targets: [new LambdaTarget(this.buildEventFunction, { retryAttempts: 8, maxEventAge: Duration.hours(2) })],
    });

    this.sweeper = new SweeperSchedule(this, 'Sweeper', { names, codeFolder: props.codeFolder });
    this.taskEvents = new TaskEvents(this, 'TaskEvents', { names, codeFolder: props.codeFolder });
  }
}
