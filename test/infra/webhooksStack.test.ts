import { beforeAll, describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib/core';
import { Template } from 'aws-cdk-lib/assertions';
import { MAX_DELIVERY_HOLDS } from '../../shared/domain/deliveryOrder.js';
import { MAX_DELIVERY_ATTEMPTS } from '../../shared/domain/webhookDelivery.js';
import type { DeliverOutput } from '../../handlers/webhooks/deliver.js';
import { bundleLambdaCode } from '../../infra/bundle.js';
import { sluiceNames } from '../../infra/names.js';
import { WebhooksStack } from '../../infra/stacks/webhooksStack.js';
import { PREFIX, actionsOf, functionStatements, onlyFunctionWithEnv, resourcesOf, tablesNamed, type Resource } from './sluiceTemplates.js';

let template: Template;
let definition: AslDefinition;

interface AslState {
  Type: string;
  Next?: string;
  End?: boolean;
  Parameters?: Record<string, unknown>;
  ResultPath?: string;
  Resource?: string;
  Choices?: AslRule[];
  Default?: string;
  SecondsPath?: string;
  Catch?: { ErrorEquals: string[]; ResultPath: string; Next: string }[];
  Error?: string;
  Cause?: string;
  ErrorPath?: string;
  CausePath?: string;
}
interface AslRule {
  Variable?: string;
  StringEquals?: string;
  NumericLessThan?: number;
  NumericGreaterThan?: number;
  IsPresent?: boolean;
  And?: AslRule[];
  Not?: AslRule;
  Next?: string;
}
interface AslDefinition {
  StartAt: string;
  States: Record<string, AslState>;
}

const DELIVER_ARN = 'arn:deliver';

beforeAll(() => {
  // The stack refers to the others by name only: built alone.
  template = Template.fromStack(new WebhooksStack(new App(), 'SluiceWebhooks', { names: sluiceNames(PREFIX), codeFolder: bundleLambdaCode() }));
  const machine = Object.values(resourcesOf(template, 'AWS::StepFunctions::StateMachine'))[0] as Resource;
  // The definition is a Fn::Join of JSON text around the deliver function's ARN.
  const parts = machine.Properties.DefinitionString['Fn::Join'][1] as unknown[];
  definition = JSON.parse(parts.map((part) => (typeof part === 'string' ? part : DELIVER_ARN)).join('')) as AslDefinition;
});

// A small interpreter of the subset of the Amazon States Language the definition uses.
const read = (data: any, path: string): any =>
  path
    .replace(/^\$\.?/, '')
    .split('.')
    .filter(Boolean)
    .reduce((value, key) => value?.[key], data);

function evaluate(value: string, data: any): unknown {
  const add = /^States\.MathAdd\((\$[.\w]*), (-?\d+|\$[.\w]*)\)$/.exec(value);
  if (add) {
    const operand = add[2] as string;
    return (read(data, add[1] as string) as number) + (operand.startsWith('$') ? (read(data, operand) as number) : Number(operand));
  }
  if (value.startsWith('$')) return read(data, value);
  throw new Error(`unsupported expression ${value}`);
}

function parameters(template: Record<string, unknown>, data: any): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(template).map(([key, value]) => (key.endsWith('.$') ? [key.slice(0, -2), evaluate(value as string, data)] : [key, value])),
  );
}

function matches(rule: AslRule, data: any): boolean {
  if (rule.And) return rule.And.every((inner) => matches(inner, data));
  if (rule.Not) return !matches(rule.Not, data);
  const value = read(data, rule.Variable as string);
  if (rule.IsPresent !== undefined) return (value !== undefined) === rule.IsPresent;
  // As Step Functions does: comparing a field the input lacks fails the execution.
  if (value === undefined) throw new Error(`${rule.Variable} is not in the input`);
  if (rule.StringEquals !== undefined) return value === rule.StringEquals;
  if (rule.NumericLessThan !== undefined) return typeof value === 'number' && value < rule.NumericLessThan;
  if (rule.NumericGreaterThan !== undefined) return typeof value === 'number' && value > rule.NumericGreaterThan;
  throw new Error(`unsupported rule ${JSON.stringify(rule)}`);
}

interface Run {
  end: 'Succeed' | 'Fail';
  /** The states entered, in order: each is one state transition, as Standard workflows are billed. */
  entered: string[];
  invocations: { deliveryId: string; failure?: unknown }[];
  waits: number[];
  /** A Fail state's error and cause. */
  error?: unknown;
  cause?: unknown;
}

/** What the deliver Lambda answers after an attempt (`attempted`) or while held (`held`). */
const attempt = (state: string, waitSeconds = 0): DeliverOutput => ({ state: state as DeliverOutput['state'], waitSeconds, attempted: 1, held: 0 });
const hold = (waitSeconds: number): DeliverOutput => ({ state: 'pending', waitSeconds, attempted: 0, held: 1 });

/** A Lambda error as Step Functions catches it. */
const lambdaError = (message: string) => ({ Error: 'Error', Cause: JSON.stringify({ errorType: 'Error', errorMessage: message }) });

/**
 * Runs the state machine with a deliver Lambda answering `answers(n, payload)` at its n-th
 * invocation (1-based); an answer that throws is a Lambda error (after Step Functions' retries).
 */
function run(input: unknown, answers: (invocation: number, payload: { deliveryId: string; failure?: unknown }) => DeliverOutput): Run {
  const invocations: { deliveryId: string; failure?: unknown }[] = [];
  const waits: number[] = [];
  const entered: string[] = [];
  let data: any = input;
  let name: string | undefined = definition.StartAt;
  while (entered.length < 20_000 && name) {
    entered.push(name);
    const state = definition.States[name] as AslState;
    switch (state.Type) {
      case 'Pass':
        data = state.Parameters ? parameters(state.Parameters, data) : data;
        break;
      case 'Task': {
        expect(state.Resource).toBe(DELIVER_ARN);
        const payload = parameters(state.Parameters ?? {}, data) as { deliveryId: string; failure?: unknown };
        invocations.push(payload);
        let result: unknown;
        try {
          result = answers(invocations.length, payload);
        } catch (error) {
          const handler = state.Catch?.find((candidate) => candidate.ErrorEquals.includes('States.ALL'));
          if (!handler) throw error;
          data = { ...data, [handler.ResultPath.replace(/^\$\./, '')]: lambdaError((error as Error).message) };
          name = handler.Next;
          continue;
        }
        if (state.ResultPath === '$') data = result;
        else data = { ...data, [(state.ResultPath as string).replace(/^\$\./, '')]: result };
        break;
      }
      case 'Choice': {
        const rule = state.Choices?.find((candidate) => matches(candidate, data));
        name = rule ? rule.Next : state.Default;
        continue;
      }
      case 'Wait':
        waits.push(read(data, state.SecondsPath as string) as number);
        break;
      case 'Succeed':
        return { end: 'Succeed', entered, invocations, waits };
      case 'Fail':
        return {
          end: 'Fail',
          entered,
          invocations,
          waits,
          error: state.ErrorPath ? read(data, state.ErrorPath) : state.Error,
          cause: state.CausePath ? read(data, state.CausePath) : state.Cause,
        };
      default:
        throw new Error(`unsupported state type ${state.Type}`);
    }
    name = state.End ? undefined : state.Next;
  }
  throw new Error('the state machine did not end');
}

describe('WebhooksStack', () => {
  it('names the state machine after the prefix, as the service addresses it', () => {
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', { StateMachineName: `${PREFIX}webhook-deliveries`, StateMachineType: 'STANDARD' });
  });

  it('has Deliver invoke the deliver Lambda with the payload only', () => {
    const deliver = definition.States.Deliver as AslState;
    expect(deliver.Type).toBe('Task');
    expect(deliver.Resource).toBe(DELIVER_ARN);
    const [, fn] = onlyFunctionWithEnv(template, 'SLUICE_MODE', 'aws');
    expect(fn.Properties).toMatchObject({ Handler: 'deliver.handler', Runtime: 'nodejs24.x' });
  });

  it('ends after one Deliver step once the delivery is delivered', () => {
    const result = run({ deliveryId: 'd1' }, () => attempt('delivered'));
    expect(result).toMatchObject({ end: 'Succeed', invocations: [{ deliveryId: 'd1' }], waits: [] });
  });

  it('waits the seconds Deliver asks for between attempts, passing the delivery id each time', () => {
    const result = run({ deliveryId: 'd2' }, (n) => (n < 3 ? attempt('pending', n * 7) : attempt('failed')));
    expect(result).toMatchObject({ end: 'Succeed', invocations: [{ deliveryId: 'd2' }, { deliveryId: 'd2' }, { deliveryId: 'd2' }], waits: [7, 14] });
  });

  it('waits the seconds it was started with before its first step (a retry after the inline first attempt, or a hold)', () => {
    const result = run({ deliveryId: 'd10', waitSeconds: 4 }, () => attempt('delivered'));
    expect(result).toMatchObject({ end: 'Succeed', invocations: [{ deliveryId: 'd10' }], waits: [4] });
    expect(result.entered.slice(0, 4)).toEqual(['Wait first?', 'Start after a wait', 'Wait', 'Deliver']);
  });

  it('attempts at once when started without a wait (the sweeper restarting an overdue delivery)', () => {
    for (const input of [{ deliveryId: 'd11' }, { deliveryId: 'd11', waitSeconds: 0 }]) {
      const result = run(input, () => attempt('delivered'));
      expect(result).toMatchObject({ end: 'Succeed', invocations: [{ deliveryId: 'd11' }], waits: [] });
      expect(result.entered.slice(0, 3)).toEqual(['Wait first?', 'Start', 'Deliver']);
    }
  });

  it('bills few state transitions: 7 for a retry that delivers, 39 for a dead receiver’s nine retries, 6 for a sweeper restart', () => {
    const retried = run({ deliveryId: 'd12', waitSeconds: 1 }, () => attempt('delivered'));
    expect(retried.entered).toHaveLength(7);
    const dead = run({ deliveryId: 'd12', waitSeconds: 1 }, (n) => (n < MAX_DELIVERY_ATTEMPTS - 1 ? attempt('pending', 2 ** n) : attempt('failed')));
    expect(dead.invocations).toHaveLength(MAX_DELIVERY_ATTEMPTS - 1);
    expect(dead.waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256]);
    expect(dead.entered).toHaveLength(39);
    expect(run({ deliveryId: 'd12' }, () => attempt('delivered')).entered).toHaveLength(6);
  });

  it(`never makes more than ${MAX_DELIVERY_ATTEMPTS} attempts, even if the Lambda kept answering pending`, () => {
    expect(MAX_DELIVERY_ATTEMPTS).toBe(10);
    const result = run({ deliveryId: 'd3' }, () => attempt('pending', 1));
    expect(result.invocations).toHaveLength(MAX_DELIVERY_ATTEMPTS);
    expect(result.end).toBe('Fail');
  });

  it('records a failed Deliver step (the Lambda’s error) through the deliver Lambda, then goes on retrying', () => {
    const result = run({ deliveryId: 'd4' }, (n, payload) => {
      if (n === 1) throw new Error('Task timed out after 60.00 seconds');
      return payload.failure ? attempt('pending', 3) : attempt('delivered');
    });
    expect(result.invocations).toEqual([
      { deliveryId: 'd4' },
      { deliveryId: 'd4', failure: lambdaError('Task timed out after 60.00 seconds') },
      { deliveryId: 'd4' },
    ]);
    expect(result).toMatchObject({ end: 'Succeed', waits: [3] });
  });

  it('counts a recorded failure as an attempt', () => {
    const result = run({ deliveryId: 'd5' }, (_, payload) => {
      if (!payload.failure) throw new Error('boom');
      return attempt('pending', 1);
    });
    expect(result.invocations.filter((payload) => payload.failure)).toHaveLength(MAX_DELIVERY_ATTEMPTS);
    expect(result.end).toBe('Fail');
  });

  it('ends in a Fail whose error and cause are the Lambda’s when even recording the failure fails (the sweeper restarts it)', () => {
    const result = run({ deliveryId: 'd6' }, (n) => {
      throw new Error(n === 1 ? 'first' : 'DynamoDB unreachable');
    });
    expect(result.invocations).toHaveLength(2);
    expect(result).toMatchObject({ end: 'Fail', error: 'Error', cause: lambdaError('DynamoDB unreachable').Cause });
  });

  it('does not count holds (waiting behind an earlier delivery) as attempts', () => {
    const result = run({ deliveryId: 'd7' }, (n) => (n <= 50 ? hold(2) : attempt('pending', 1)));
    expect(result.invocations).toHaveLength(50 + MAX_DELIVERY_ATTEMPTS);
    expect(result.waits.slice(0, 3)).toEqual([2, 2, 2]);
  });

  it(`ends a run held ${MAX_DELIVERY_HOLDS} times (the sweeper restarts it), so no answer keeps it looping`, () => {
    const result = run({ deliveryId: 'd8' }, () => hold(1));
    expect(result.invocations).toHaveLength(MAX_DELIVERY_HOLDS);
    expect(result.end).toBe('Fail');
  });

  it('lets the deliver Lambda touch only the deliveries and organizations tables, read spilled payloads and output files (it presigns their URLs at each attempt), and start nothing', () => {
    const [id] = onlyFunctionWithEnv(template, 'SLUICE_MODE', 'aws');
    const statements = functionStatements(template, id);
    expect(tablesNamed(statements)).toEqual(new Set(['webhook_deliveries', 'organizations']));
    expect(JSON.stringify(statements)).not.toMatch(/"(sqs|states|ecs|codebuild):/);
    const s3 = statements.filter((statement) => actionsOf([statement]).some((action) => action.startsWith('s3:')));
    expect(actionsOf(s3).sort()).toEqual(['s3:GetObject', 's3:ListBucket']);
    const reads = JSON.stringify(s3.find((statement) => actionsOf([statement]).includes('s3:GetObject'))?.Resource);
    expect(reads).toMatch(/\/spill\/\*"/);
    expect(reads).toMatch(/\/files\/\*"/);
    expect(reads).not.toMatch(/\/(bundles|uploads)\//);
  });
});
