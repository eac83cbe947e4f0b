import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';

/** One DynamoDB item, as the document client reads and writes it. */
export type Item = Record<string, NativeAttributeValue>;
