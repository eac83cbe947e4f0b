import { App } from 'aws-cdk-lib/core';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import { describe, expect, it } from 'vitest';
import { createTableInput } from '../../shared/adapters/aws/dynamodb/createTables.js';
import { TABLES, tableName } from '../../shared/adapters/aws/dynamodb/tables.js';
import { DataStack } from '../../infra/stacks/dataStack.js';
import { ADDING_STEPS, UPGRADE_STEPS } from '../../infra/indexUpgrade.js';

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

  describe('upgrading a stack deployed with indexes that projected every attribute', () => {
    /** Each table's index names and definitions, by table name, as a step's template defines them (step 0: the stack before the upgrade). */
    const indexesOf = (indexUpgradeStep?: number): Map<string, Map<string, string>> => {
      const tables = Template.fromStack(new DataStack(new App(), 'SluiceData', { tablePrefix, indexUpgradeStep })).findResources('AWS::DynamoDB::Table');
      return new Map(
        Object.values(tables).map((table) => {
          const indexes = ((table.Properties.GlobalSecondaryIndexes ?? []) as { IndexName: string }[]).map(
            (index) => [index.IndexName, JSON.stringify(index)] as const,
          );
          return [table.Properties.TableName as string, new Map(indexes)];
        }),
      );
    };
    const before = indexesOf(0);
    const upgraded = indexesOf();
    const steps = Array.from({ length: UPGRADE_STEPS }, (_, step) => indexesOf(step + 1));
    const names = (indexes: Map<string, string> | undefined) => [...(indexes?.keys() ?? [])].sort();

    it('adds or deletes at most one index of each table a deploy, and never changes one in place', () => {
      [before, ...steps, upgraded].reduce((previous, current, step) => {
        for (const [table, indexes] of current) {
          const was = previous.get(table) ?? new Map<string, string>();
          const changed = [...names(indexes).filter((name) => !was.has(name)), ...names(was).filter((name) => !indexes.has(name))];
          expect(changed.length, `${table} at step ${step}`).toBeLessThanOrEqual(1);
          for (const [name, definition] of indexes) if (was.has(name)) expect(definition).toBe(was.get(name));
        }
        return current;
      });
    });

    it('starts from every old index and ends with exactly the indexes of tables.ts, old and new both there while the service changes', () => {
      expect([...before.values()].flatMap(names).some((name) => name.endsWith('_v2'))).toBe(false);
      expect(steps.at(-1)).toEqual(upgraded);
      const serviceChange = steps[ADDING_STEPS - 1] ?? new Map<string, Map<string, string>>();
      for (const [table, indexes] of serviceChange) expect(names(indexes)).toEqual([...names(before.get(table)), ...names(upgraded.get(table))].sort());
    });
  });
});
