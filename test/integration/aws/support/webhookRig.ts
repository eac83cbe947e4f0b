import { CreateStateMachineCommand, DescribeExecutionCommand, ListExecutionsCommand, SFNClient } from '@aws-sdk/client-sfn';
import { Template } from 'aws-cdk-lib/assertions';
import { App } from 'aws-cdk-lib/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AwsClients } from '../../../../emulator/awsClients.js';
import type { CloudAssembly } from '../../../../emulator/cloudAssembly.js';
import type { LambdaService } from '../../../../emulator/lambda/lambdaService.js';
import { StepFunctionsEmulator } from '../../../../emulator/stepFunctions.js';
import { deliverStep, type DeliverInput } from '../../../../handlers/webhooks/deliver.js';
import { sluiceNames } from '../../../../infra/names.js';
import { WebhooksStack } from '../../../../infra/stacks/webhooksStack.js';
import { createTables } from '../../../../shared/adapters/aws/dynamodb/createTables.js';
import { createDocumentClient, createDynamoDbStore } from '../../../../shared/adapters/aws/dynamodb/dynamoDbStore.js';
import { createInlineFirstAttemptScheduler } from '../../../../shared/adapters/aws/inlineFirstAttempt.js';
import { createStepFunctionsScheduler } from '../../../../shared/adapters/aws/stepFunctionsScheduler.js';
import { createHttpWebhookSender } from '../../../../shared/adapters/httpWebhookSender.js';
import { createSystemClock } from '../../../../shared/adapters/systemClock.js';
import type { WebhookEventType } from '../../../../shared/domain/webhook.js';
import { generateWebhookSecret } from '../../../../shared/domain/webhookSignature.js';
import { WebhookDeliverer } from '../../../../shared/services/webhookDeliverer.js';
import { WebhookSecrets } from '../../../../shared/services/webhookSecrets.js';
import { WebhookService } from '../../../../shared/services/webhookService.js';
import { startDynalite } from '../../../contract/dynaliteServer.js';
import { startWebhookReceiver } from '../../../e2e/support/webhookReceiver.js';
import { aJob, anOrganization } from '../../../support/fixtures.js';
import { startMotoServer } from '../../../support/motoServer.js';

const REGION = 'us-east-1';
const DELIVER_ARN = `arn:aws:lambda:${REGION}:123456789012:function:deliver`;

let definitionText: string | undefined;

/** The state machine as WebhooksStack synthesizes it, its Deliver task pointing at DELIVER_ARN; synthesized once a process. */
function synthesizedDefinition(): string {
  if (definitionText) return definitionText;
  const codeFolder = mkdtempSync(join(tmpdir(), 'sluice-deliver-code-'));
  try {
    const template = Template.fromStack(new WebhooksStack(new App(), 'SluiceWebhooks', { names: sluiceNames('sluice-'), codeFolder }));
    const [machine] = Object.values(template.findResources('AWS::StepFunctions::StateMachine'));
    const parts = machine?.Properties.DefinitionString['Fn::Join'][1] as unknown[];
    definitionText = parts.map((part) => (typeof part === 'string' ? part : DELIVER_ARN)).join('');
    return definitionText;
  } finally {
    rmSync(codeFolder, { recursive: true, force: true });
  }
}

export interface RigOptions {
  /** The inline first attempt's bound. */
  firstAttemptTimeoutMs: number;
  /** The sender's own timeout, which the state machine's attempts get. */
  senderTimeoutMs: number;
}

/**
 * The AWS mode's webhook path on real parts: deliveries in dynalite, Step Functions executions
 * started in moto_server and run, as `npm run aws:local` runs them, by the emulator from the
 * synthesized definition (its Deliver task calling the deliver Lambda's code in this process),
 * and a real receiver on 127.0.0.1. Retries wait 1 s, then 2 s.
 */
export async function startWebhookRig(options: RigOptions) {
  const dynalite = await startDynalite();
  await createTables(dynalite.client, 'sluice-');
  const store = createDynamoDbStore({ tablePrefix: 'sluice-', client: createDocumentClient(dynalite.client) });
  const moto = await startMotoServer();
  const sfn = new SFNClient({ region: REGION, endpoint: moto.endpoint, credentials: { accessKeyId: 'fake', secretAccessKey: 'fake' } });
  const definition = synthesizedDefinition();
  const { stateMachineArn } = await sfn.send(
    new CreateStateMachineCommand({ name: 'sluice-webhook-deliveries', definition, roleArn: 'arn:aws:iam::123456789012:role/sluice-deliveries' }),
  );
  const receiver = await startWebhookReceiver();
  const organization = anOrganization({ webhookSecret: generateWebhookSecret() });
  await store.organizations.createIfAbsent(organization);

  const clock = createSystemClock();
  const errors: unknown[] = [];
  const send = createHttpWebhookSender({ allowed: ['loopback'], timeoutMs: options.senderTimeoutMs });
  const deliverer = new WebhookDeliverer(store, new WebhookSecrets(store), send, clock, 1000);
  const onError = (error: unknown) => errors.push(error);
  const runs = createStepFunctionsScheduler({ client: sfn, stateMachineArn: stateMachineArn as string, onError });
  const scheduler = createInlineFirstAttemptScheduler({ runs, attempts: deliverer, clock, timeoutMs: options.firstAttemptTimeoutMs, onError });
  const webhooks = new WebhookService(store, scheduler, clock);

  // What aws:local does with every StartExecution that moto accepted: run it.
  const machine = {
    stack: 'SluiceWebhooks',
    logicalId: 'Deliveries',
    resource: { Type: 'AWS::StepFunctions::StateMachine', Properties: { DefinitionString: definition } },
  };
  const assembly = { ofType: () => [machine] } as unknown as CloudAssembly;
  const resolve = (_stack: string, value: unknown) => (typeof value === 'object' && value !== null && 'Ref' in value ? stateMachineArn : value);
  const lambdas = { invoke: (_name: string, input: unknown) => deliverStep(deliverer, input as DeliverInput, () => clock.now()) } as unknown as LambdaService;
  const emulator = new StepFunctionsEmulator(assembly, resolve, lambdas, { sfn } as unknown as AwsClients, () => undefined);
  sfn.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName === 'StartExecutionCommand') {
        const started = result.output as { executionArn: string };
        emulator.start({ executionArn: started.executionArn, stateMachineArn: stateMachineArn as string, input: (args.input as { input: string }).input });
      }
      return result;
    },
    { step: 'initialize', name: 'runStartedExecutions' },
  );

  return {
    store,
    sfn,
    receiver,
    webhooks,
    deliverer,
    scheduler,
    errors,
    /** A job of the rig's organization, its webhooks the given types to one receiver path. */
    aJobWithHooks: (path: string, types: WebhookEventType[]) =>
      aJob({ organizationId: organization.id, status: 'finished', webhooks: types.map((type) => ({ type, url: receiver.url(path) })) }),
    /** The executions started for these deliveries, oldest first: each one's name and input. */
    async executions(deliveryIds: (string | undefined)[]) {
      const { executions = [] } = await sfn.send(new ListExecutionsCommand({ stateMachineArn }));
      const ours = executions.filter((execution) => deliveryIds.some((id) => id && execution.name?.startsWith(`${id}-`)));
      const described = await Promise.all(ours.map((execution) => sfn.send(new DescribeExecutionCommand({ executionArn: execution.executionArn }))));
      return described
        .sort((a, b) => (a.startDate?.getTime() ?? 0) - (b.startDate?.getTime() ?? 0))
        .map((execution) => ({ name: execution.name, input: JSON.parse(execution.input ?? '{}') as unknown }));
    },
    async waitForDelivery(id: string, done: (delivery: NonNullable<Awaited<ReturnType<typeof store.deliveries.get>>>) => boolean, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const delivery = await store.deliveries.get(id);
        if (delivery && done(delivery)) return delivery;
        if (Date.now() > deadline) throw new Error(`delivery ${id} is still ${JSON.stringify(delivery)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async close() {
      // The receiver first: a hanging attempt ends at once, before the store goes.
      await receiver.close();
      emulator.stop();
      await new Promise((resolve) => setTimeout(resolve, 200));
      sfn.destroy();
      await moto.close();
      await store.close();
      await dynalite.close();
    },
  };
}

export type WebhookRig = Awaited<ReturnType<typeof startWebhookRig>>;
