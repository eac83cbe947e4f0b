import { RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib/core';
import { AttributeType, BillingMode, ProjectionType, Table, type Attribute } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { TABLES, tableName, type IndexDefinition, type KeyAttribute, type TableDefinition, type TableId } from '../../shared/adapters/aws/dynamodb/tables.js';
import { indexesAtStep, parseUpgradeStep, type LegacyIndex } from '../indexUpgrade.js';

export interface DataStackProps extends StackProps {
  /** Table names are this followed by each table's suffix; the store is configured with the same prefix. */
  tablePrefix: string;
  /** An upgrade's step from the indexes that projected every attribute (infra/indexUpgrade.ts); none when fresh or done. */
  indexUpgradeStep?: number;
}

const ATTRIBUTE_TYPES = { S: AttributeType.STRING, N: AttributeType.NUMBER } as const;

const attribute = (key: KeyAttribute): Attribute => ({ name: key.name, type: ATTRIBUTE_TYPES[key.type] });
const optionalAttribute = (key: KeyAttribute | undefined) => (key ? attribute(key) : undefined);

/** A legacy index (no projection of its own) holds every attribute. */
function projectionOf(index: IndexDefinition | LegacyIndex) {
  if (!('projection' in index)) return { projectionType: ProjectionType.ALL };
  return index.projection.type === 'KEYS_ONLY'
    ? { projectionType: ProjectionType.KEYS_ONLY }
    : { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.projection.attributes] };
}

/** The store's DynamoDB tables, as shared/adapters/aws/dynamodb/tables.ts defines them. */
export class DataStack extends Stack {
  readonly tablePrefix: string;
  /** Each table by the store's name for it, for other stacks to grant access and pass names. */
  readonly tables: Record<TableId, Table>;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);
    this.tablePrefix = props.tablePrefix;
    const step = props.indexUpgradeStep ?? parseUpgradeStep(this.node.tryGetContext('sluice:indexUpgradeStep'));
    const entries = Object.entries(TABLES).map(([tableId, definition]) => [tableId, this.createTable(tableId as TableId, definition, step)]);
    this.tables = Object.fromEntries(entries) as Record<TableId, Table>;
  }

  private createTable(tableId: TableId, definition: TableDefinition, step: number | undefined): Table {
    const table = new Table(this, tableId, {
      tableName: tableName(this.tablePrefix, definition),
      partitionKey: attribute(definition.partitionKey),
      sortKey: optionalAttribute(definition.sortKey),
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: definition.timeToLiveAttribute,
      // The data outlives the stack: deleting the stack must not delete accounts, functions or logs.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const { current, legacy } = indexesAtStep(tableId, step);
    for (const index of [...legacy, ...current]) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: attribute(index.partitionKey),
        sortKey: optionalAttribute(index.sortKey),
        ...projectionOf(index),
      });
    }
    return table;
  }
}
