import { beforeAll, describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib/core';
import { Template } from 'aws-cdk-lib/assertions';
import { DEFAULT_API_THROTTLE, parseApiThrottle } from '../../infra/apiThrottle.js';
import { bundleLambdaCode } from '../../infra/bundle.js';
import { sluiceNames } from '../../infra/names.js';
import { ApiStack } from '../../infra/stacks/apiStack.js';
import { ROUTES } from '../../shared/http/routeTable.js';
import { PREFIX, resourcesOf, sluiceApp } from './sluiceTemplates.js';

const stages = (template: Template) => Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Stage'));

let api: Template;
beforeAll(() => {
  api = sluiceApp().templates.api;
});

describe('the API’s default stage', () => {
  it('is the one stage, $default, deployed automatically, throttled by default to DEFAULT_API_THROTTLE, with access logs to a log group kept a month', () => {
    const all = stages(api);
    expect(all).toHaveLength(1);
    expect(all[0]?.Properties).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: DEFAULT_API_THROTTLE.rateLimit, ThrottlingBurstLimit: DEFAULT_API_THROTTLE.burstLimit },
      AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': [expect.stringMatching(/^AccessLogs/), 'Arn'] } },
    });
    api.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  it('takes the throttle it is given', () => {
    const stack = new ApiStack(new App(), 'SluiceApi', {
      names: sluiceNames(PREFIX),
      routes: ROUTES,
      codeFolder: bundleLambdaCode(),
      throttle: { rateLimit: 7, burstLimit: 9 },
    });
    expect(stages(Template.fromStack(stack))[0]?.Properties.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 });
  });
});

describe('parseApiThrottle (context sluice:apiThrottleRate, sluice:apiThrottleBurst)', () => {
  it('defaults each limit, and reads them as cdk passes them (strings) or cdk.json holds them (numbers)', () => {
    expect(parseApiThrottle(undefined, undefined)).toEqual(DEFAULT_API_THROTTLE);
    expect(parseApiThrottle('50', 80)).toEqual({ rateLimit: 50, burstLimit: 80 });
    expect(parseApiThrottle(undefined, '500')).toEqual({ rateLimit: DEFAULT_API_THROTTLE.rateLimit, burstLimit: 500 });
  });

  it('refuses anything but a whole number of at least 1', () => {
    for (const value of ['0', '-1', '1.5', 'ten', ''])
      expect(() => parseApiThrottle(value, undefined)).toThrow(`sluice:apiThrottleRate must be a whole number of at least 1, not "${value}"`);
    expect(() => parseApiThrottle(undefined, 'x')).toThrow('sluice:apiThrottleBurst');
  });
});
