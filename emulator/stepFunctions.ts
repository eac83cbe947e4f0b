import { StopExecutionCommand } from '@aws-sdk/client-sfn';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import type { AwsClients } from './awsClients.js';
import type { CloudAssembly } from './cloudAssembly.js';
import type { Resolver } from './intrinsics.js';
import { LambdaInvocationError, THROTTLED, type LambdaService } from './lambda/lambdaService.js';

// aws-local-stepfunctions uses Promise.withResolvers (Node 22); Node 20 lacks it.
(Promise as unknown as { withResolvers?: unknown }).withResolvers ??= function withResolvers<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

export interface StartedExecution {
  executionArn: string;
  stateMachineArn: string;
  input: string;
}

/**
 * Step Functions, emulated: an execution started through moto (which only records it) runs
 * here with aws-local-stepfunctions, from the definition the template holds, its Lambda tasks
 * invoking the emulated Lambdas synchronously (a function error is the task's error, named by
 * its errorType, so Retry and Catch apply as on AWS). Waits are real time. When an execution
 * ends, moto's record is stopped, so it no longer reads RUNNING.
 */
export class StepFunctionsEmulator {
  private readonly machines = new Map<string, { definition: StateMachineDefinition; machine: StateMachine }>();
  private readonly running = new Map<string, () => void>();

  constructor(
    assembly: CloudAssembly,
    resolve: Resolver,
    private readonly lambdas: LambdaService,
    private readonly clients: AwsClients,
    private readonly onEvent: (message: string) => void,
    /** Told of each state transition (a state entered, or retried), as Step Functions bills them. */
    private readonly onTransition: () => void = () => undefined,
  ) {
    for (const { stack, logicalId, resource } of assembly.ofType('AWS::StepFunctions::StateMachine')) {
      const arn = String(resolve(stack, { Ref: logicalId }));
      const definition = JSON.parse(String(resolve(stack, resource.Properties?.DefinitionString))) as StateMachineDefinition;
      // Validated once (it takes about a second): an execution starts as soon as StartExecution answers.
      this.machines.set(arn, { definition, machine: new StateMachine(definition, { validationOptions: { checkArn: false } }) });
    }
  }

  start(execution: StartedExecution): void {
    const known = this.machines.get(execution.stateMachineArn);
    if (!known || this.running.has(execution.executionArn)) return;
    const { definition, machine } = known;
    const run = machine.run(JSON.parse(execution.input || '{}'), {
      overrides: { taskResourceLocalHandlers: this.lambdaTasks(definition) },
      noThrowOnAbort: true,
    });
    this.running.set(execution.executionArn, run.abort);
    void (async () => {
      for await (const event of run.eventLogs) if (event.type === 'StateEntered' || event.type === 'StateRetried') this.onTransition();
    })().catch(() => undefined);
    void run.result
      .then(
        () => undefined,
        (error: unknown) => this.onEvent(`execution ${execution.executionArn} failed: ${(error as Error).message}`),
      )
      .finally(() => {
        this.running.delete(execution.executionArn);
        void this.clients.sfn.send(new StopExecutionCommand({ executionArn: execution.executionArn })).catch(() => undefined);
      });
  }

  stop(): void {
    for (const abort of this.running.values()) abort();
  }

  /** Each Task state whose resource is a Lambda function, as a call of the emulated function. */
  private lambdaTasks(definition: StateMachineDefinition): Record<string, (input: any) => Promise<any>> {
    const handlers: Record<string, (input: any) => Promise<any>> = {};
    for (const [name, state] of Object.entries(
      definition.States as Record<string, { Type: string; Resource?: string; Parameters?: { FunctionName?: string } }>,
    )) {
      if (state.Type !== 'Task' || !state.Resource) continue;
      const functionArn = state.Resource.startsWith('arn:aws:lambda:') ? state.Resource : state.Parameters?.FunctionName;
      if (!functionArn) continue;
      const functionName = functionArn.split(':')[6] ?? functionArn;
      handlers[name] = async (input) => {
        try {
          return await this.lambdas.invoke(functionName, input);
        } catch (error) {
          if (!(error instanceof LambdaInvocationError)) throw error;
          // Lambda's own refusals reach the state machine as `Lambda.<exception>` (a throttle:
          // Lambda.TooManyRequestsException), which Retry can name; function errors by their type.
          throw Object.assign(new Error(error.message), { name: error.errorType === THROTTLED ? `Lambda.${THROTTLED}` : error.errorType });
        }
      };
    }
    return handlers;
  }
}
