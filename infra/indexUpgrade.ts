import { TABLES, type IndexDefinition, type KeyAttribute, type TableId } from '../shared/adapters/aws/dynamodb/tables.js';

/** An index of the deployments made before indexes were narrowed: every attribute projected. */
export type LegacyIndex = Omit<IndexDefinition, 'projection'>;

const text = (name: string): KeyAttribute => ({ name, type: 'S' });
const byCreation = (indexName: string, partitionKey: string): LegacyIndex => ({ indexName, partitionKey: text(partitionKey), sortKey: text('created_key') });

/** The indexes a stack deployed before the `_v2` indexes has, table by table. */
export const LEGACY_INDEXES: Record<TableId, LegacyIndex[]> = {
  organizations: [{ indexName: 'by_id', partitionKey: text('id') }],
  apiKeys: [
    { indexName: 'by_organization', partitionKey: text('organization_id'), sortKey: { name: 'created_at', type: 'N' } },
    { indexName: 'by_id', partitionKey: text('id') },
  ],
  functions: [{ indexName: 'by_id', partitionKey: text('id') }],
  versions: [byCreation('by_function', 'function_id'), byCreation('by_build_status', 'build_status')],
  logs: [{ indexName: 'by_organization', partitionKey: text('organization_id'), sortKey: text('time_key') }],
  jobs: [
    byCreation('by_function', 'function_id'),
    byCreation('by_version', 'version_id'),
    byCreation('by_organization', 'organization_id'),
    byCreation('by_parent', 'parent_job_id'),
    byCreation('queued_by_version', 'queued_version'),
    byCreation('queued', 'queued_shard'),
    byCreation('active_by_organization', 'active_organization'),
  ],
  jobOutputs: [],
  deliveries: [
    { indexName: 'by_job', partitionKey: text('job_id'), sortKey: text('job_key') },
    { indexName: 'pending', partitionKey: text('pending_partition'), sortKey: text('pending_key') },
    { indexName: 'overdue', partitionKey: text('pending_partition'), sortKey: text('due_key') },
  ],
  usageJobs: [],
  usageHours: [],
  pageEnds: [],
  idempotencyKeys: [],
};

const tableIds = Object.keys(TABLES) as TableId[];
/** Steps that add the new indexes: the most any table adds, one a step. */
export const ADDING_STEPS = Math.max(...tableIds.map((id) => TABLES[id].globalSecondaryIndexes.length));

/** How many `cdk deploy`s of the data stack an upgrade takes: every table's adds, then its deletes. */
export const UPGRADE_STEPS = ADDING_STEPS + Math.max(...tableIds.map((id) => LEGACY_INDEXES[id].length));

/**
 * A table's indexes at an upgrade step (1 to UPGRADE_STEPS; none: the upgraded set).
 * CloudFormation adds or deletes one index of a table per update, and cannot change a
 * projection in place. Steps 1 to ADDING_STEPS add the new indexes one a step, beside the old
 * ones the running service still reads; the later steps delete the old ones one a step, once
 * the service that reads the new ones is deployed (docs/deploying-to-aws.md).
 */
export function indexesAtStep(tableId: TableId, step: number | undefined): { current: IndexDefinition[]; legacy: LegacyIndex[] } {
  const current = TABLES[tableId].globalSecondaryIndexes;
  if (step === undefined) return { current, legacy: [] };
  const added = Math.min(step, current.length);
  const deleted = Math.max(0, step - ADDING_STEPS);
  return { current: current.slice(0, added), legacy: LEGACY_INDEXES[tableId].slice(deleted) };
}

/** The step named by the `sluice:indexUpgradeStep` context value, checked. */
export function parseUpgradeStep(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const step = Number(value);
  if (!Number.isInteger(step) || step < 1 || step > UPGRADE_STEPS)
    throw new Error(`sluice:indexUpgradeStep must be a whole number from 1 to ${UPGRADE_STEPS}, not ${String(value)}`);
  return step;
}
