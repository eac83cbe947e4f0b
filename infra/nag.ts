import { NagSuppressions, type NagPackSuppression } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/**
 * cdk-nag (AwsSolutions, checked by test/infra/nag.test.ts): a finding is either fixed in its
 * construct or acknowledged here, on that construct and its children, with the reason it
 * stands. Acknowledge after the construct is complete: cdk-nag marks the resources that exist
 * when called (a role's default policy appears with its first statement).
 */
export function acknowledge(construct: IConstruct, suppressions: NagPackSuppression[]): void {
  if (suppressions.length > 0) NagSuppressions.addResourceSuppressions(construct, suppressions, true);
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** One field of an ARN as cdk-nag writes it: a value, empty, or a token such as `<AWS::Region>` (which has colons). */
const FIELD = '(?:<[^>]+>|[^:<]*)';

/**
 * The IAM5 finding of a wildcard resource `arn:<partition>:<service>:<region>:<account>:<resource>`,
 * whatever the partition, region and account are (tokens or, with an env, values).
 */
export function wildcardArn(service: string, resource: string): { regex: string } {
  return wildcardArnMatching(service, escape(resource));
}

/** As wildcardArn, with the resource part a regular expression (for a resource named by a token, `<LogicalId>`). */
export function wildcardArnMatching(service: string, resourcePattern: string): { regex: string } {
  return { regex: `/^Resource::arn:${FIELD}:${escape(service)}:${FIELD}:${FIELD}:${resourcePattern}$/` };
}

/**
 * The IAM5 finding of objects of a bucket whose name starts with `bucketNamePrefix` (the rest is
 * account and region), under `keyPattern`. Bucket ARNs have no region or account.
 */
export function wildcardObjects(bucketNamePrefix: string, keyPattern: string): { regex: string } {
  return { regex: `/^Resource::arn:${FIELD}:s3:::${escape(bucketNamePrefix)}[^/]*\\/${escape(keyPattern)}$/` };
}

/** The IAM5 finding of a `*` resource. */
export const ANY_RESOURCE = 'Resource::*';
