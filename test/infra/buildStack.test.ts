import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib/core';
import { Template } from 'aws-cdk-lib/assertions';
import { bundleLambdaCode, bundleWorker } from '../../infra/bundle.js';
import { BASE_IMAGES, PER_BUILD_VARIABLES } from '../../infra/buildspec.js';
import { encodeRunCommands } from '../../shared/domain/runCommands.js';
import { sluiceNames } from '../../infra/names.js';
import { BuildStack, FILES_EXPIRE_DAYS, KEEP_IMAGES } from '../../infra/stacks/buildStack.js';
import { ComputeStack } from '../../infra/stacks/computeStack.js';
import { UPLOAD_KEPT_DAYS } from '../../shared/domain/upload.js';
import {
  PREFIX,
  actionsOf,
  functionStatements,
  logicalIdOf,
  onlyFunctionWithHandler,
  resourcesOf,
  roleStatements,
  tablesNamed,
  type Resource,
  type Statement,
} from './sluiceTemplates.js';
import { writeImage } from './dockerfileScript.js';

const PUBLIC_URL = 'https://api.example.com';
let template: Template;
let build: BuildStack;

beforeAll(() => {
  // The build stack needs the compute stack's roles and network, and the API's URL (given here).
  const app = new App();
  const names = sluiceNames(PREFIX);
  const compute = new ComputeStack(app, 'SluiceCompute', { names });
  build = new BuildStack(app, 'SluiceBuild', { names, codeFolder: bundleLambdaCode(), workerFolder: bundleWorker(), compute, publicUrl: PUBLIC_URL });
  template = Template.fromStack(build);
});

const only = (type: string): Resource => {
  const found = Object.values(resourcesOf(template, type));
  expect(found).toHaveLength(1);
  return found[0] as Resource;
};
const logicalResource = (construct: Parameters<typeof logicalIdOf>[0]): Resource => template.toJSON().Resources[logicalIdOf(construct)] as Resource;
const statementWith = (statements: Statement[], action: string) => statements.find((statement) => actionsOf([statement]).includes(action));

describe('BuildStack', () => {
  describe('the artifacts bucket', () => {
    it('is named per account and region, blocks public access, encrypts, and is kept when the stack goes', () => {
      const bucket = template.toJSON().Resources[logicalIdOf(build.bucket)];
      expect(JSON.stringify(bucket.Properties.BucketName)).toContain(`${PREFIX}artifacts-`);
      expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
      expect(bucket.DeletionPolicy).toBe('Retain');
    });

    it(`expires output files (files/) after ${FILES_EXPIRE_DAYS} days and bundle uploads (uploads/) after ${UPLOAD_KEPT_DAYS} day, and keeps bundles`, () => {
      const rules = only('AWS::S3::Bucket').Properties.LifecycleConfiguration.Rules as Record<string, unknown>[];
      const expiring = rules.filter((rule) => rule.ExpirationInDays !== undefined);
      expect(expiring).toEqual([
        expect.objectContaining({ Prefix: 'files/', ExpirationInDays: 30, Status: 'Enabled' }),
        expect.objectContaining({ Prefix: 'uploads/', ExpirationInDays: 1, Status: 'Enabled' }),
      ]);
    });

    it('lets pages of the allowed origins PUT uploads to presigned URLs and GET outputs (the dashboard’s file inputs)', () => {
      expect(only('AWS::S3::Bucket').Properties.CorsConfiguration).toEqual({
        CorsRules: [{ AllowedMethods: ['PUT', 'GET'], AllowedOrigins: ['*'], AllowedHeaders: ['*'], MaxAge: 86_400 }],
      });
    });

    it('refuses requests without TLS', () => {
      expect(JSON.stringify(only('AWS::S3::BucketPolicy').Properties.PolicyDocument)).toContain('"aws:SecureTransport":"false"');
    });
  });

  it(`scans images on push and keeps the last ${KEEP_IMAGES}`, () => {
    const repository = only('AWS::ECR::Repository').Properties;
    expect(repository.RepositoryName).toBe(`${PREFIX}functions`);
    expect(repository.ImageScanningConfiguration).toEqual({ ScanOnPush: true });
    const rules = JSON.parse(repository.LifecyclePolicy.LifecyclePolicyText).rules as {
      selection: { tagStatus: string; countType: string; countNumber: number };
    }[];
    expect(rules).toContainEqual(
      expect.objectContaining({ selection: expect.objectContaining({ tagStatus: 'any', countType: 'imageCountMoreThan', countNumber: KEEP_IMAGES }) }),
    );
  });

  describe('the image build project', () => {
    it('runs privileged Linux builds (docker build) named after the prefix', () => {
      const project = only('AWS::CodeBuild::Project').Properties;
      expect(project.Name).toBe(`${PREFIX}image-build`);
      expect(project.Environment).toMatchObject({ Type: 'LINUX_CONTAINER', PrivilegedMode: true });
    });

    it('declares every per-build variable the service overrides, and the worker and base images', () => {
      const variables = (only('AWS::CodeBuild::Project').Properties.Environment.EnvironmentVariables as { Name: string }[]).map((variable) => variable.Name);
      expect(variables).toEqual(expect.arrayContaining([...PER_BUILD_VARIABLES, ...Object.keys(BASE_IMAGES), 'WORKER_URI']));
    });

    it('downloads the bundle, writes the Dockerfile and builds, and pushes to ECR in post_build only after a successful build', () => {
      const spec = JSON.parse(only('AWS::CodeBuild::Project').Properties.Source.BuildSpec);
      expect(spec.phases.pre_build.commands.join('\n')).toContain('aws s3 cp "$BUNDLE_URI"');
      expect(spec.phases.build.commands.join('\n')).toContain('image/Dockerfile');
      expect(spec.phases.build.commands.join('\n')).toMatch(/docker build --tag "\$IMAGE_URI" .* image$/m);
      expect(spec.phases.post_build.commands).toEqual([expect.stringMatching(/^if \[ "\$CODEBUILD_BUILD_SUCCEEDING" = 1 \]; then docker push "\$IMAGE_URI"/)]);
    });

    const projectStatements = () =>
      roleStatements(template, (only('AWS::CodeBuild::Project').Properties.ServiceRole as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0]);

    it('may read bundles/ of the bucket and push to its own repository only', () => {
      const statements = projectStatements();
      const reads = statements.filter((statement) => actionsOf([statement]).includes('s3:GetObject')).map((statement) => JSON.stringify(statement.Resource));
      expect(reads).toEqual([expect.stringContaining('cdk-hnb659fds-assets'), expect.stringContaining('/bundles/*')]);
      expect(actionsOf(statements)).not.toContain('s3:PutObject');
      const worker = statements.filter((statement) => JSON.stringify(statement.Resource).includes('cdk-hnb659fds-assets'));
      expect(worker.map((statement) => statement.Action)).toEqual(['s3:GetObject']);
      const push = statementWith(statements, 'ecr:PutImage');
      expect(push?.Resource).toEqual({ 'Fn::GetAtt': [logicalIdOf(build.repository), 'Arn'] });
    });

    it('may pull its own repository’s layers, where the build cache lies', () => {
      expect(statementWith(projectStatements(), 'ecr:GetDownloadUrlForLayer')?.Resource).toEqual({ 'Fn::GetAtt': [logicalIdOf(build.repository), 'Arn'] });
    });
  });

  describe('the build events', () => {
    it('sends the project’s phase and state changes to the build-event Lambda', () => {
      const rule = logicalResource(build.buildEventRule).Properties;
      expect(rule.EventPattern).toEqual({
        source: ['aws.codebuild'],
        'detail-type': ['CodeBuild Build Phase Change', 'CodeBuild Build State Change'],
        detail: { 'project-name': [{ Ref: logicalIdOf(build.project) }] },
      });
      const [id, fn] = onlyFunctionWithHandler(template, 'onBuildEvent.handler');
      expect(rule.Targets).toEqual([expect.objectContaining({ Arn: { 'Fn::GetAtt': [id, 'Arn'] } })]);
      expect(fn.Properties).toMatchObject({ Handler: 'onBuildEvent.handler', Runtime: 'nodejs24.x' });
    });

    it('tells the build-event Lambda the task roles, log group, subnets, security group and the API URL', () => {
      const [, fn] = onlyFunctionWithHandler(template, 'onBuildEvent.handler');
      expect(Object.keys(fn.Properties.Environment.Variables)).toEqual(
        expect.arrayContaining([
          'SLUICE_TASK_ROLE_ARN',
          'SLUICE_EXECUTION_ROLE_ARN',
          'SLUICE_LOG_GROUP',
          'SLUICE_SUBNETS',
          'SLUICE_SECURITY_GROUPS',
          'SLUICE_PUBLIC_URL',
          'SLUICE_CAPACITY_PROVIDERS',
        ]),
      );
      expect(fn.Properties.Environment.Variables.SLUICE_PUBLIC_URL).toBe(PUBLIC_URL);
    });

    it('lets the build-event Lambda deploy versions (queue, task definition, service in the cluster, scaling) and write their build logs', () => {
      const [id] = onlyFunctionWithHandler(template, 'onBuildEvent.handler');
      const statements = functionStatements(template, id);
      expect(JSON.stringify(statementWith(statements, 'sqs:CreateQueue')?.Resource)).toContain(`:${PREFIX}v-*`);
      const service = statementWith(statements, 'ecs:CreateService');
      expect(actionsOf([service as Statement])).toEqual(expect.arrayContaining(['ecs:CreateService', 'ecs:UpdateService', 'ecs:DescribeServices']));
      expect(JSON.stringify(service?.Resource)).toContain(`:service/${PREFIX}cluster/v-*`);
      expect(actionsOf(statements)).toEqual(
        expect.arrayContaining([
          'ecs:RegisterTaskDefinition',
          'application-autoscaling:RegisterScalableTarget',
          'application-autoscaling:PutScalingPolicy',
          'states:StartExecution',
        ]),
      );
      expect(tablesNamed(statements, 'dynamodb:PutItem')).toEqual(new Set(['versions', 'jobs', 'webhook_deliveries', 'logs']));
      // Its jobs' webhooks' first attempts are signed with their organization's secret.
      expect(tablesNamed(statements, 'dynamodb:GetItem')).toContain('organizations');
    });

    it('lets the build-event Lambda pass the two worker task roles to ECS tasks, and no other role', () => {
      const [id] = onlyFunctionWithHandler(template, 'onBuildEvent.handler');
      const pass = functionStatements(template, id).filter((statement) => actionsOf([statement]).includes('iam:PassRole'));
      expect(pass).toHaveLength(1);
      expect(pass[0]?.Condition).toEqual({ StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } });
      const resources = JSON.stringify(pass[0]?.Resource);
      expect(resources).toContain('TaskRole');
      expect(resources).toContain('TaskExecutionRole');
      expect((pass[0]?.Resource as unknown[]).length).toBe(2);
    });
  });
});

describe('the task events', () => {
  it('sends the versions’ stopped tasks of the cluster to the task-event Lambda', () => {
    const rule = logicalResource(build.taskEvents.rule).Properties;
    expect(rule.EventPattern).toMatchObject({
      source: ['aws.ecs'],
      'detail-type': ['ECS Task State Change'],
      detail: { lastStatus: ['STOPPED'], group: [{ prefix: 'service:v-' }] },
    });
    expect(JSON.stringify(rule.EventPattern.detail.clusterArn)).toContain(`:cluster/${PREFIX}cluster`);
    const [id] = onlyFunctionWithHandler(template, 'onTaskStopped.handler');
    expect(rule.Targets).toEqual([expect.objectContaining({ Arn: { 'Fn::GetAtt': [id, 'Arn'] } })]);
  });

  it('lets the task-event Lambda end a version and its queued jobs, and set its service and scaling to zero, nothing more in ECS', () => {
    const [id] = onlyFunctionWithHandler(template, 'onTaskStopped.handler');
    const statements = functionStatements(template, id);
    expect(tablesNamed(statements, 'dynamodb:UpdateItem')).toEqual(new Set(['versions', 'jobs', 'webhook_deliveries', 'logs']));
    const service = statementWith(statements, 'ecs:UpdateService');
    expect(actionsOf([service as Statement])).toEqual(['ecs:UpdateService']);
    expect(JSON.stringify(service?.Resource)).toContain(`:service/${PREFIX}cluster/v-*`);
    expect(
      actionsOf(statements)
        .filter((action) => /^(ecs|application-autoscaling|iam):/.test(action))
        .sort(),
    ).toEqual(['application-autoscaling:RegisterScalableTarget', 'ecs:UpdateService']);
  });
});

describe('the sweeper', () => {
  it('runs the sweep Lambda every minute', () => {
    const rule = logicalResource(build.sweeper.rule).Properties;
    expect(rule.ScheduleExpression).toBe('rate(1 minute)');
    const [id, fn] = onlyFunctionWithHandler(template, 'sweep.handler');
    expect(rule.Targets).toEqual([expect.objectContaining({ Arn: { 'Fn::GetAtt': [id, 'Arn'] } })]);
    // Shorter than the period, so two sweeps never overlap.
    expect(fn.Properties.Timeout).toBeLessThan(60);
  });

  it('lets the sweeper start builds and deliveries, tell a running delivery from an ended one, set services to their queue’s depth, and write only what it moves (spill/ for the large values of what it ends)', () => {
    const [id] = onlyFunctionWithHandler(template, 'sweep.handler');
    const statements = functionStatements(template, id);
    expect(tablesNamed(statements, 'dynamodb:UpdateItem')).toEqual(new Set(['versions', 'jobs', 'webhook_deliveries']));
    // organizations: the signing secret of the first attempts of the webhooks of the jobs it ends.
    expect(tablesNamed(statements, 'dynamodb:Query')).toEqual(new Set(['versions', 'jobs', 'job_outputs', 'webhook_deliveries', 'organizations']));
    expect(JSON.stringify(statementWith(statements, 'codebuild:StartBuild')?.Resource)).toContain(`:project/${PREFIX}image-build`);
    expect(JSON.stringify(statementWith(statements, 'states:StartExecution')?.Resource)).toContain(`:stateMachine:${PREFIX}webhook-deliveries`);
    expect(JSON.stringify(statementWith(statements, 'states:DescribeExecution')?.Resource)).toContain(`:execution:${PREFIX}webhook-deliveries:*`);
    expect(JSON.stringify(statements)).not.toMatch(/"iam:/);
    expect(actionsOf(statements.filter((statement) => actionsOf([statement]).some((action) => /^(sqs|ecs):/.test(action)))).sort()).toEqual([
      'ecs:DescribeServices',
      'ecs:UpdateService',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
    ]);
    expect(JSON.stringify(statementWith(statements, 'sqs:GetQueueAttributes')?.Resource)).toContain(`:${PREFIX}v-*`);
    const s3 = statements.filter((statement) => actionsOf([statement]).some((action) => action.startsWith('s3:') && action !== 's3:ListBucket'));
    expect(actionsOf(s3).sort()).toEqual(['s3:AbortMultipartUpload', 's3:DeleteObject', 's3:GetObject', 's3:PutObject']);
    expect(s3.map((statement) => JSON.stringify(statement.Resource))).toEqual(s3.map(() => expect.stringMatching(/\/spill\/\*"\]\]\}$/)));
  });
});

describe('the Dockerfile the build writes', () => {
  const work = mkdtempSync(join(tmpdir(), 'sluice-dockerfile-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  const write = (variables: Record<string, string>) => writeImage(work, variables);

  it('starts from python:<version>-slim without CUDA, with the system and Python packages, node, the worker and the code', () => {
    const { status, dockerfile, requirements } = write({ PYTHON_VERSION: '3.12', PYTHON_PACKAGES: 'numpy==2.1 requests', SYSTEM_PACKAGES: 'ffmpeg libsm6' });
    expect(status).toBe(0);
    expect(dockerfile).toContain(`FROM ${BASE_IMAGES.PYTHON_IMAGE}:3.12-slim\n`);
    expect(dockerfile).toContain('apt-get install -y --no-install-recommends ca-certificates ffmpeg libsm6');
    expect(dockerfile).toContain('RUN python -m venv /opt/venv');
    expect(dockerfile).toContain('pip install -r /tmp/requirements.txt');
    expect(dockerfile).toContain('COPY --from=node /usr/local/bin/node /usr/local/bin/node');
    expect(dockerfile).toContain('COPY worker/ /app/');
    expect(dockerfile).toContain('COPY code/ /app/code/');
    expect(dockerfile).toContain('ENV VIRTUAL_ENV=/opt/venv PATH=/opt/venv/bin:$PATH');
    expect(dockerfile.trim().split('\n').at(-1)).toBe('CMD ["node", "/app/worker.mjs"]');
    expect(requirements).toBe('numpy==2.1\nrequests\n');
    // The agent runs as root; its replicas as an unprivileged user that cannot read its environment.
    expect(dockerfile).toContain('useradd --system --uid 10001 --gid 10001');
    expect(dockerfile).toContain('ENV SLUICE_REPLICA_UID=10001 SLUICE_REPLICA_GID=10001 SLUICE_REPLICA_HOME=/home/sluice-fn');
    expect(dockerfile).not.toMatch(/^USER /m);
    // What run_commands left setuid or setgid (a planted copy of a shell) loses the bit, after every RUN that could make one.
    const strip = dockerfile.indexOf('RUN find / -xdev -type f -perm /6000 -exec chmod ug-s {} +');
    expect(strip).toBeGreaterThan(dockerfile.lastIndexOf('pip install'));
    expect(strip).toBeGreaterThan(dockerfile.indexOf('useradd'));
  });

  it('starts from the NVIDIA CUDA runtime when a CUDA version is set, installing the Python version with uv', () => {
    const { status, dockerfile } = write({ CUDA_VERSION: '12.1', PYTHON_VERSION: '3.10' });
    expect(status).toBe(0);
    expect(dockerfile).toContain(`FROM ${BASE_IMAGES.CUDA_IMAGE}:12.1.0-runtime-ubuntu22.04\n`);
    expect(dockerfile).toContain('uv venv --seed --python 3.10 /opt/venv');
    expect(dockerfile).not.toContain(BASE_IMAGES.PYTHON_IMAGE);
  });

  it('keeps a full CUDA version as given', () => {
    expect(write({ CUDA_VERSION: '11.8.0' }).dockerfile).toContain(':11.8.0-runtime-ubuntu22.04');
  });

  it('runs the run_commands in order after the Python packages and before the code, each in a shell, exactly as written', () => {
    const commands = ['echo "one" && ls $VIRTUAL_ENV', "printf '%s\\n' a\necho two", 'echo trailing \\'];
    const { status, dockerfile } = write({ PYTHON_PACKAGES: 'six', RUN_COMMANDS: encodeRunCommands(commands) });
    expect(status).toBe(0);
    const lines = dockerfile.split('\n');
    const runs = lines.filter((line) => line.startsWith('RUN ["/bin/sh", "-c", '));
    expect(runs.map((line) => JSON.parse(line.slice('RUN '.length)))).toEqual(commands.map((command) => ['/bin/sh', '-c', command]));
    const at = (text: string) => lines.findIndex((line) => line.includes(text));
    expect(at('pip install -r')).toBeLessThan(lines.indexOf(runs[0]!));
    expect(lines.indexOf(runs.at(-1)!)).toBeLessThan(at('COPY code/'));
  });

  it('imports the entry file last, in the image, as a replica will: code that does not import fails the build', () => {
    const { status, dockerfile } = write({ ENTRY_FILE: 'models/main.py', ENTRY_SYMBOL: 'Predictor' });
    expect(status).toBe(0);
    const lines = dockerfile.trim().split('\n');
    const check = lines.at(-2) as string;
    expect(JSON.parse(check.slice('RUN '.length))).toEqual([
      'env',
      'PYTHONPATH=/app/sdk:/app/code',
      'PYTHONDONTWRITEBYTECODE=1',
      'SLUICE_ENTRY_FILE=models/main.py',
      'SLUICE_ENTRY_SYMBOL=Predictor',
      'python',
      '-m',
      'sluice._check_import',
    ]);
    expect(lines.indexOf('WORKDIR /app/code')).toBeLessThan(lines.length - 2);
  });

  it.each([
    ['my model.py', 'run'],
    ['../main.py', 'run'],
    ['main.py', 'run"]\nRUN id #'],
  ])('builds %j (%j) without the import step rather than write it into the Dockerfile', (file, symbol) => {
    const result = write({ ENTRY_FILE: file, ENTRY_SYMBOL: symbol });
    expect(result.status).toBe(0);
    expect(result.dockerfile).not.toContain('_check_import');
    expect(result.stderr).toContain('is not checked at build');
  });

  it('writes no RUN line for a version without run_commands', () => {
    expect(write({}).dockerfile).not.toContain('"/bin/sh", "-c"');
  });

  it('does not expand package specs as file globs', () => {
    writeFileSync(join(work, 'numpya'), '');
    expect(write({ PYTHON_PACKAGES: 'numpy[a]' }).requirements).toBe('numpy[a]\n');
  });

  it.each([
    ['SYSTEM_PACKAGES', 'curl; rm -rf /'],
    ['SYSTEM_PACKAGES', '$(id)'],
    ['PYTHON_VERSION', '3.11 && id'],
    ['CUDA_VERSION', '12.1-devel'],
    ['VERSION_ID', 'v1\nRUN id'],
    ['RUN_COMMANDS', 'not base64!'],
    ['RUN_COMMANDS', Buffer.from('echo hi\nRUN id').toString('base64')],
  ])('refuses %s %j, which would change the Dockerfile', (name, value) => {
    const result = write({ [name]: value });
    expect(result.status).not.toBe(0);
    expect(result.stderr).not.toBe('');
  });
});
