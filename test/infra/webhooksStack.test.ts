import { beforeAll, describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib/core';
import { Template } from 'aws-cdk-lib/assertions';
import { MAX_DELIVERY_ATTEMPTS } from '../../shared/domain/webhookDelivery.js';
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
}
interface AslRule {
  Variable?: string;
  StringEquals?: string;
  NumericLessThan?: number;
  And?: AslRule[];
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
const read = (data: any, path: string): any => path.replace(/^\$\.?/, '').split('.').filter(Boolean).reduce((value, key) => value?.[key], data);

function evaluate(value: string, data: any): unknown {
  const add = /^States\.MathAdd\((\$[.\w]*), (-?\d+)\)$/.exec(value);
  if (add) return (read(data, add[1] as string) as number) + Number(add[2]);
  if (value.startsWith('$')) return read(data, value);
  throw new Error(`unsupported expression ${value}`);
}

function parameters(template: Record<string, unknown>, data: any): Record<string, unknown> {
  return Object.fromEntries(Object.entries(template).map(([key, value]) => (key.endsWith('.$') ? [key.slice(0, -2), evaluate(value as string, data)] : [key, value])));
}

function matches(rule: AslRule, data: any): boolean {
  if (rule.And) return rule.And.every((inner) => matches(inner, data));
  const value = read(data, rule.Variable as string);
  if (rule.StringEquals !== undefined) return value === rule.StringEquals;
  if (rule.NumericLessThan !== undefined) return typeof value === 'number' && value < rule.NumericLessThan;
  throw new Error(`unsupported rule ${JSON.stringify(rule)}`);
}

interface Run {
  end: 'Succeed' | 'Fail';
  invocations: { deliveryId: string }[];
  waits: number[];
}

/** Runs the state machine with a deliver Lambda answering `answers(n)` at its n-th invocation (1-based). */
function run(input: unknown, answers: (invocation: number) => { state: string; waitSeconds: number }): Run {
  const invocations: { deliveryId: string }[] = [];
  const waits: number[] = [];
  let data: any = input;
  let name: string | undefined = definition.StartAt;
  for (let transitions = 0; transitions < 1000 && name; transitions++) {
    const state = definition.States[name] as AslState;
    switch (state.Type) {
      case 'Pass':
        data = state.Parameters ? parameters(state.Parameters, data) : data;
        break;
      case 'Task': {
        expect(state.Resource).toBe(DELIVER_ARN);
        const payload = parameters(state.Parameters ?? {}, data) as { deliveryId: string };
        invocations.push(payload);
        const result = answers(invocations.length);
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
      case 'Fail':
        return { end: state.Type, invocations, waits };
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
    expect(fn.Properties).toMatchObject({ Handler: 'deliver.handler', Runtime: 'nodejs22.x' });
  });

  it('ends after one Deliver step once the delivery is delivered', () => {
    const result = run({ deliveryId: 'd1' }, () => ({ state: 'delivered', waitSeconds: 0 }));
    expect(result).toEqual({ end: 'Succeed', invocations: [{ deliveryId: 'd1' }], waits: [] });
  });

  it('waits the seconds Deliver asks for between attempts, passing the delivery id each time', () => {
    const result = run({ deliveryId: 'd2' }, (n) => (n < 3 ? { state: 'pending', waitSeconds: n * 7 } : { state: 'failed', waitSeconds: 0 }));
    expect(result).toEqual({ end: 'Succeed', invocations: [{ deliveryId: 'd2' }, { deliveryId: 'd2' }, { deliveryId: 'd2' }], waits: [7, 14] });
  });

  it(`never runs Deliver more than ${MAX_DELIVERY_ATTEMPTS} times, even if the Lambda kept answering pending`, () => {
    expect(MAX_DELIVERY_ATTEMPTS).toBe(10);
    const result = run({ deliveryId: 'd3' }, () => ({ state: 'pending', waitSeconds: 1 }));
    expect(result.invocations).toHaveLength(MAX_DELIVERY_ATTEMPTS);
    expect(result.end).toBe('Fail');
  });

  it('lets the deliver Lambda touch only the deliveries and organizations tables, read spilled payloads, and start nothing', () => {
    const [id] = onlyFunctionWithEnv(template, 'SLUICE_MODE', 'aws');
    const statements = functionStatements(template, id);
    expect(tablesNamed(statements)).toEqual(new Set(['webhook_deliveries', 'organizations']));
    expect(JSON.stringify(statements)).not.toMatch(/"(sqs|states|ecs|codebuild):/);
    const s3 = statements.filter((statement) => actionsOf([statement]).some((action) => action.startsWith('s3:')));
    expect(actionsOf(s3).sort()).toEqual(['s3:GetObject', 's3:ListBucket']);
    expect(JSON.stringify(s3.find((statement) => actionsOf([statement]).includes('s3:GetObject'))?.Resource)).toMatch(/\/spill\/\*"/);
  });
});
