import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { SpillStorage } from './dynamodb/spill.js';

export interface S3SpillOptions {
  client: S3Client;
  /** The artifacts bucket: the DynamoDB store's keys all start with `spill/`. */
  bucket: string;
}

/** The DynamoDB store's spill in S3: text too large for an item, one object per value. */
export function createS3Spill(options: S3SpillOptions): SpillStorage {
  const { client, bucket } = options;
  return {
    async put(key, text) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: text, ContentType: 'text/plain; charset=utf-8' }));
    },
    async get(key) {
      const { Body } = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return Body ? Body.transformToString('utf-8') : '';
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
  };
}
