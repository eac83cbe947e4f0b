import { App } from 'aws-cdk-lib/core';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import { describe, expect, it } from 'vitest';
import { createTableInput } from '../../shared/adapters/aws/dynamodb/createTables.js';
import { TABLES, tableName } from '../../shared/adapters/aws/dynamodb/tables.js';
import { DataStack } from '../../infra/stacks/dataStack.js';

const tablePrefix = 'test-';
const stack = new DataStack(new App(), 'SluiceData', { tablePrefix });
const template = Template.fromStack(stack);

interface TableResource {
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

function tableResource(name: string): TableResource {
  const found = Object.values(template.findResources('AWS::DynamoDB::Table', { Properties: { TableName: name } }));
  expect(found).toHaveLength(1);
  return found[0] as TableResource;
}

const byAttributeName = (a: { AttributeName?: string }, b: { AttributeName?: string }) => (a.AttributeName ?? '').localeCompare(b.AttributeName ?? '');

describe('DataStack', () => {
  it('creates one DynamoDB table per table definition and nothing else stateful', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', Object.keys(TABLES).length);
  });

  describe.each(Object.entries(TABLES))('the %s table', (tableId, definition) => {
    const name = tableName(tablePrefix, definition);
    // The same CreateTable input the dynalite tests create tables from.
    const expected = createTableInput(tablePrefix, definition);

    it('has the key schema and indexes of tables.ts', () => {
      const properties = tableResource(name).Properties;
      expect(properties.KeySchema).toEqual(expected.KeySchema);
      expect(properties.GlobalSecondaryIndexes).toEqual(expected.GlobalSecondaryIndexes);
      const attributes = properties.AttributeDefinitions as { AttributeName: string }[];
      expect([...attributes].sort(byAttributeName)).toEqual([...(expected.AttributeDefinitions ?? [])].sort(byAttributeName));
    });

    it('bills per request, keeps point-in-time recovery on and is retained when the stack goes', () => {
      const resource = tableResource(name);
      expect(resource.Properties.BillingMode).toBe('PAY_PER_REQUEST');
      expect(resource.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
      expect(resource.DeletionPolicy).toBe('Retain');
      expect(resource.UpdateReplacePolicy).toBe('Retain');
    });

    it('expires items by TTL exactly when tables.ts names a TTL attribute', () => {
      const ttl = tableResource(name).Properties.TimeToLiveSpecification;
      expect(ttl).toEqual(definition.timeToLiveAttribute ? { AttributeName: definition.timeToLiveAttribute, Enabled: true } : undefined);
    });

    it('is exposed to other stacks under its store name', () => {
      const table = stack.tables[tableId as keyof typeof TABLES].node.defaultChild as CfnTable;
      expect(tableResource(name)).toEqual(template.toJSON().Resources[stack.getLogicalId(table)]);
    });
  });

  it('expires log lines through the expires_at attribute', () => {
    expect(tableResource(tableName(tablePrefix, TABLES.logs)).Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'expires_at', Enabled: true });
  });
});
