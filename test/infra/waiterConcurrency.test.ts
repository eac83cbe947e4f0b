import { beforeAll, describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib/core';
import { Template } from 'aws-cdk-lib/assertions';
import { bundleLambdaCode } from '../../infra/bundle.js';
import { sluiceNames } from '../../infra/names.js';
import { ApiStack } from '../../infra/stacks/apiStack.js';
import { API_WAITING_ROUTES, DEFAULT_WAITER_CONCURRENCY, parseWaiterConcurrency, reservedConcurrency } from '../../infra/waiterConcurrency.js';
import { ROUTES } from '../../shared/http/routeTable.js';
import { PREFIX, onlyFunctionWithEnv, resourcesOf, sluiceApp } from './sluiceTemplates.js';

const reservationOf = (template: Template, route: string, awaitTimeoutS?: string) => {
  const candidates = Object.values(resourcesOf(template, 'AWS::Lambda::Function')).filter(
    (fn) =>
      fn.Properties.Environment?.Variables?.SLUICE_ROUTE === route &&
      (awaitTimeoutS === undefined || fn.Properties.Environment?.Variables?.SLUICE_AWAIT_TIMEOUT_S === awaitTimeoutS),
  );
  expect(candidates).toHaveLength(1);
  return candidates[0]?.Properties.ReservedConcurrentExecutions as number | undefined;
};

let api: Template;
beforeAll(() => {
  api = sluiceApp().templates.api;
});

describe('reserved concurrency for the functions that wait for jobs', () => {
  it('names the route table’s await and event-stream routes', () => {
    const names = ROUTES.map((route) => route.name);
    for (const route of API_WAITING_ROUTES) expect(names).toContain(route);
  });

  it('reserves DEFAULT_WAITER_CONCURRENCY for each waiting route’s function and for the await function URL’s, and none for the other routes', () => {
    for (const route of API_WAITING_ROUTES) expect(reservationOf(api, route, route === 'awaitJob' ? '25' : undefined)).toBe(DEFAULT_WAITER_CONCURRENCY.api);
    expect(reservationOf(api, 'awaitJob', '600')).toBe(DEFAULT_WAITER_CONCURRENCY.longAwait);
    for (const route of ['pushJob', 'getJob', 'listJobs'])
      expect(onlyFunctionWithEnv(api, 'SLUICE_ROUTE', route)[1].Properties.ReservedConcurrentExecutions).toBeUndefined();
  });

  it('takes the reservations it is given, 0 reserving none', () => {
    const stack = new ApiStack(new App(), 'SluiceApi', {
      names: sluiceNames(PREFIX),
      routes: ROUTES,
      codeFolder: bundleLambdaCode(),
      waiterConcurrency: { api: 3, longAwait: 0 },
    });
    const template = Template.fromStack(stack);
    expect(reservationOf(template, 'streamJobEvents')).toBe(3);
    expect(reservationOf(template, 'awaitJob', '600')).toBeUndefined();
  });
});

describe('parseWaiterConcurrency (context sluice:waiterConcurrency, sluice:longAwaitConcurrency, sluice:lambdaConcurrency)', () => {
  it('defaults to reservations that leave most of AWS’s default 1,000 unreserved', () => {
    expect(parseWaiterConcurrency(undefined, undefined, undefined)).toEqual(DEFAULT_WAITER_CONCURRENCY);
    expect(1000 - reservedConcurrency(DEFAULT_WAITER_CONCURRENCY)).toBeGreaterThanOrEqual(100);
  });

  it('reads values as cdk passes them (strings) or cdk.json holds them (numbers)', () => {
    expect(parseWaiterConcurrency('10', 20, '400')).toEqual({ api: 10, longAwait: 20 });
    expect(parseWaiterConcurrency('0', '0', '10')).toEqual({ api: 0, longAwait: 0 });
  });

  it('refuses reservations that would leave the account under the 100 unreserved executions Lambda requires', () => {
    expect(() => parseWaiterConcurrency(undefined, undefined, '250')).toThrow(/Lambda requires at least 100/);
    expect(() => parseWaiterConcurrency('30', '10', 199)).toThrow(/leave 99/);
    expect(parseWaiterConcurrency('30', '10', 200)).toEqual({ api: 30, longAwait: 10 });
  });

  it('refuses what is not a whole number', () => {
    expect(() => parseWaiterConcurrency('-1', undefined, undefined)).toThrow(/sluice:waiterConcurrency/);
    expect(() => parseWaiterConcurrency(undefined, 'many', undefined)).toThrow(/sluice:longAwaitConcurrency/);
    expect(() => parseWaiterConcurrency(undefined, undefined, '0')).toThrow(/sluice:lambdaConcurrency/);
  });
});
