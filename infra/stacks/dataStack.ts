import { RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib/core';
import { AttributeType, BillingMode, ProjectionType, Table, type Attribute } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { TABLES, tableName, type KeyAttribute, type TableDefinition, type TableId } from '../../shared/adapters/aws/dynamodb/tables.js';

export interface DataStackProps extends StackProps {
  /** Table names are this followed by each table's suffix; the store is configured with the same prefix. */
  tablePrefix: string;
}

const ATTRIBUTE_TYPES = { S: AttributeType.STRING, N: AttributeType.NUMBER } as const;

const attribute = (key: KeyAttribute): Attribute => ({ name: key.name, type: ATTRIBUTE_TYPES[key.type] });
const optionalAttribute = (key: KeyAttribute | undefined) => (key ? attribute(key) : undefined);

/** The store's DynamoDB tables, as shared/adapters/aws/dynamodb/tables.ts defines them. */
export class DataStack extends Stack {
  readonly tablePrefix: string;
  /** Each table by the store's name for it, for other stacks to grant access and pass names. */
  readonly tables: Record<TableId, Table>;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);
    this.tablePrefix = props.tablePrefix;
    const entries = Object.entries(TABLES).map(([tableId, definition]) => [tableId, this.createTable(tableId, definition)]);
    this.tables = Object.fromEntries(entries) as Record<TableId, Table>;
  }

  private createTable(tableId: string, definition: TableDefinition): Table {
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
    for (const index of definition.globalSecondaryIndexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: attribute(index.partitionKey),
        sortKey: optionalAttribute(index.sortKey),
        projectionType: ProjectionType.ALL,
      });
    }
    return table;
  }
}
