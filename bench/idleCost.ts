// What a deployment costs a month doing nothing: the resources billed by the hour that its
// synthesized templates declare, and the scheduled rules that run whether or not jobs do.
import type { Template } from '../emulator/cloudAssembly.js';
import { AWS_PRICES, HOURS_PER_MONTH, type AwsPrices } from './awsPrices.js';

export interface IdleLine {
  item: string;
  count: number;
  monthly: number;
}

const MINUTES = { minute: 1, minutes: 1, hour: 60, hours: 60, day: 1440, days: 1440 } as const;

/** Runs a month of a `rate(N unit)` schedule; null for a cron expression or none. */
export function monthlyRuns(expression: unknown): number | null {
  const match = /^rate\((\d+) (minutes?|hours?|days?)\)$/.exec(String(expression));
  if (!match) return null;
  return (HOURS_PER_MONTH * 60) / (Number(match[1]) * MINUTES[match[2] as keyof typeof MINUTES]);
}

/**
 * The idle month of the stacks: NAT gateways and public IPv4 addresses (Elastic IPs) by the hour,
 * interface VPC endpoints by the hour in each of their subnets, alarms by the month, and each
 * scheduled rule's runs at `costPerScheduledRun` (measured: a sweep's Lambda and DynamoDB). Lines
 * that come to nothing are left out; instances are not counted, since every group idles at zero.
 */
export function idleMonthlyCost(stacks: Record<string, Template>, costPerScheduledRun: number, prices: AwsPrices = AWS_PRICES): IdleLine[] {
  const resources = Object.values(stacks).flatMap((template) => Object.values(template.Resources));
  const ofType = (type: string) => resources.filter((resource) => resource.Type === type);
  const hourly = (count: number, usdPerHour: number) => count * usdPerHour * HOURS_PER_MONTH;
  const nat = ofType('AWS::EC2::NatGateway').length;
  const eips = ofType('AWS::EC2::EIP').length;
  const interfaceEndpoints = ofType('AWS::EC2::VPCEndpoint')
    .filter((endpoint) => endpoint.Properties?.VpcEndpointType === 'Interface')
    .reduce((sum, endpoint) => sum + Math.max(1, (endpoint.Properties?.SubnetIds as unknown[] | undefined)?.length ?? 1), 0);
  const alarms = ofType('AWS::CloudWatch::Alarm').length;
  const runs = ofType('AWS::Events::Rule').reduce((sum, rule) => sum + (monthlyRuns(rule.Properties?.ScheduleExpression) ?? 0), 0);
  const lines: IdleLine[] = [
    { item: 'NAT gateways (hours)', count: nat, monthly: hourly(nat, prices.natGatewayHour.usd) },
    { item: 'public IPv4 addresses (Elastic IPs)', count: eips, monthly: hourly(eips, prices.publicIpv4Hour.usd) },
    { item: 'interface VPC endpoints (endpoint-AZs)', count: interfaceEndpoints, monthly: hourly(interfaceEndpoints, prices.interfaceEndpointHour.usd) },
    { item: 'CloudWatch alarms in the templates', count: alarms, monthly: alarms * prices.alarmMonth.usd },
    { item: 'scheduled rule runs (the sweeper)', count: runs, monthly: runs * costPerScheduledRun },
  ];
  return lines.filter((line) => line.count > 0);
}
