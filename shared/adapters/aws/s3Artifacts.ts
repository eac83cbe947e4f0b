import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Artifacts } from '../../ports/artifacts.js';

export interface S3ArtifactsOptions {
  client: S3Client;
  bucket: string;
}

export const bundleKeyOf = (versionId: string) => `bundles/${versionId}.tar.gz`;

/** An output file's key ends with its name, so the name needs no metadata of its own. */
const outputPrefixOf = (jobId: string, index: number) => `files/${jobId}/${index}/`;

const isNoSuchKey = (error: unknown) => (error as { name?: string }).name === 'NoSuchKey';

/**
 * Bundles and output files in one bucket: `bundles/<version>.tar.gz` (what CodeBuild
 * downloads) and `files/<job>/<index>/<name>`. An S3 put is atomic, so a reader never sees
 * half an object.
 */
export function createS3Artifacts(options: S3ArtifactsOptions): Artifacts {
  const { client, bucket } = options;

  const getBytes = async (key: string): Promise<Buffer | null> => {
    try {
      const { Body } = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return Body ? Buffer.from(await Body.transformToByteArray()) : Buffer.alloc(0);
    } catch (error) {
      if (isNoSuchKey(error)) return null;
      throw error;
    }
  };

  return {
    async putBundle(versionId, bundle) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: bundleKeyOf(versionId), Body: bundle, ContentType: 'application/gzip' }));
    },

    getBundle(versionId) {
      return getBytes(bundleKeyOf(versionId));
    },

    async putOutputFile(jobId, index, name, sourcePath) {
      // Streamed, so a large output never sits in memory; S3 needs the length of a stream up front.
      const { size } = await stat(sourcePath);
      const key = `${outputPrefixOf(jobId, index)}${basename(name) || 'file'}`;
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: createReadStream(sourcePath), ContentLength: size }));
    },

    async getOutputFile(jobId, index) {
      const prefix = outputPrefixOf(jobId, index);
      const { Contents } = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: 1 }));
      const key = Contents?.[0]?.Key;
      if (!key) return null;
      const data = await getBytes(key);
      return data === null ? null : { name: key.slice(prefix.length), data };
    },
  };
}
