import type { Webhook } from './webhook.js';
import type { Micros } from './time.js';

export type Visibility = 'public' | 'private';
export type FunctionType = 'function' | 'workflow';

/** A function as stored. Its versions hold the code-derived parts; this holds the listing. */
export interface FunctionRecord {
  id: string;
  organizationId: string;
  ownerName: string;
  name: string;
  visibility: Visibility;
  title: string | null;
  codeUrl: string | null;
  description: string | null;
  tags: string[] | null;
  coverImageUrl: string | null;
  examples: string[] | null;
  readme: string | null;
  functionType: FunctionType;
  webhooks: Webhook[];
  restartOnError: boolean;
  createdAt: Micros;
  updatedAt: Micros;
}
