import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { CopyObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { attachmentDisposition } from '../../domain/fileName.js';
import { contentTypeOf } from '../../domain/contentType.js';
import { parseFileSlot, type FileSlot } from '../../domain/fileOutputs.js';
import type { Artifacts } from '../../ports/artifacts.js';
import { presignedUrl } from './s3Presigner.js';

export interface S3ArtifactsOptions {
  client: S3Client;
  bucket: string;
  /** How long an output file's download URL works (default FILE_URL_EXPIRES_S). */
  fileUrlExpiresS?: number;
}

export const bundleKeyOf = (versionId: string) => `bundles/${versionId}.tar.gz`;

/** Under the organization's id: an organization's deploy can only ever name its own uploads. */
export const uploadKeyOf = (organizationId: string, uploadId: string) => `uploads/${organizationId}/${uploadId}`;

/** An hour: a job read now gives URLs that still work when another job is pushed with them. */
export const FILE_URL_EXPIRES_S = 60 * 60;

/** An output file's key ends with its name, so the name needs no metadata of its own. */
const outputPrefixOf = (jobId: string, slot: FileSlot) => `files/${jobId}/${slot}/`;

/** A key presigned only to learn where output file URLs start. */
const FILES_PROBE_KEY = 'files/probe';

const isNoSuchKey = (error: unknown) => (error as { name?: string }).name === 'NoSuchKey';
/** HeadObject has no body, so a missing key is a bare 404. */
const isNotFound = (error: unknown) => isNoSuchKey(error) || (error as { name?: string }).name === 'NotFound';

/**
 * Bundles, uploads and output files in one bucket: `bundles/<version>.tar.gz` (what CodeBuild
 * downloads), `uploads/<organization>/<upload>` (what clients PUT through presigned URLs) and
 * `files/<job>/<slot>/<name>` (a slot: the output index, or `index.part` for a nested File). An S3 put is atomic, so a reader never sees half an object.
 */
export function createS3Artifacts(options: S3ArtifactsOptions): Artifacts {
  const { client, bucket } = options;
  const fileUrlExpiresS = options.fileUrlExpiresS ?? FILE_URL_EXPIRES_S;
  let filesBase: Promise<string> | undefined;
  /** A presigned GET of an output file, saved under its own name. */
  const fileUrl = (key: string, name: string) =>
    presignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key, ResponseContentDisposition: attachmentDisposition(name) }), fileUrlExpiresS);

  /** The object's bytes as a stream (the SDK's body is a node Readable), or null when it is missing. */
  const getStream = async (key: string): Promise<AsyncIterable<Uint8Array> | null> => {
    try {
      const { Body } = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return (Body as AsyncIterable<Uint8Array> | undefined) ?? (async function* () {})();
    } catch (error) {
      if (isNoSuchKey(error)) return null;
      throw error;
    }
  };

  const findOutputFile = async (jobId: string, slot: FileSlot): Promise<{ key: string; name: string } | null> => {
    const prefix = outputPrefixOf(jobId, slot);
    const { Contents } = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: 1 }));
    const key = Contents?.[0]?.Key;
    return key ? { key, name: key.slice(prefix.length) } : null;
  };

  return {
    async putBundle(versionId, bundle) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: bundleKeyOf(versionId), Body: bundle, ContentType: 'application/gzip' }));
    },

    readBundle(versionId) {
      return getStream(bundleKeyOf(versionId));
    },

    uploadUrl({ organizationId, uploadId, size, expiresInS }) {
      // The length is signed: S3 refuses a PUT of any other size.
      return presignedUrl(client, new PutObjectCommand({ Bucket: bucket, Key: uploadKeyOf(organizationId, uploadId), ContentLength: size }), expiresInS);
    },

    async uploadSize(organizationId, uploadId) {
      try {
        const { ContentLength } = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: uploadKeyOf(organizationId, uploadId) }));
        return ContentLength ?? 0;
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },

    readUpload(organizationId, uploadId) {
      return getStream(uploadKeyOf(organizationId, uploadId));
    },

    async putUploadFile(organizationId, uploadId, sourcePath, size) {
      // Streamed, as an output file is, and exactly `size` bytes: the length S3 is told up front.
      const body = size === 0 ? Buffer.alloc(0) : createReadStream(sourcePath, { start: 0, end: size - 1 });
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: uploadKeyOf(organizationId, uploadId), Body: body, ContentLength: size }));
    },

    async putBundleFromUpload(versionId, organizationId, uploadId) {
      // A server-side copy: the bytes never pass through the Lambda.
      await client.send(
        new CopyObjectCommand({
          Bucket: bucket,
          Key: bundleKeyOf(versionId),
          CopySource: `${bucket}/${uploadKeyOf(organizationId, uploadId)}`,
          ContentType: 'application/gzip',
          MetadataDirective: 'REPLACE',
        }),
      );
    },

    async putOutputFile(jobId, slot, name, sourcePath) {
      // Streamed, so a large output never sits in memory; S3 needs the length of a stream up front.
      const { size } = await stat(sourcePath);
      const key = `${outputPrefixOf(jobId, slot)}${basename(name) || 'file'}`;
      await client.send(
        new PutObjectCommand({ Bucket: bucket, Key: key, Body: createReadStream(sourcePath), ContentLength: size, ContentType: contentTypeOf(key) }),
      );
    },

    async openOutputFile(jobId, slot) {
      const found = await findOutputFile(jobId, slot);
      if (!found) return null;
      try {
        const { Body, ContentLength } = await client.send(new GetObjectCommand({ Bucket: bucket, Key: found.key }));
        // In node, GetObject's body is the HTTP response itself: a Readable.
        return { name: found.name, size: ContentLength ?? 0, stream: (Body as Readable | undefined) ?? Readable.from([]) };
      } catch (error) {
        if (isNoSuchKey(error)) return null;
        throw error;
      }
    },

    async outputFileUrl(jobId, slot) {
      const found = await findOutputFile(jobId, slot);
      if (!found) return null;
      return fileUrl(found.key, found.name);
    },

    async outputFileOfUrl(url) {
      // Where this client's presigned URLs of output files start (endpoint, path style and all), learnt by presigning one.
      filesBase ??= presignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: FILES_PROBE_KEY }), 60).then(
        (probe) => probe.slice(0, probe.indexOf(FILES_PROBE_KEY)) + 'files/',
      );
      const base = await filesBase;
      if (!url.href.startsWith(base)) return null;
      const match = /^([^/?#]+)\/([\d.]+)\//.exec(url.href.slice(base.length));
      const slot = match ? parseFileSlot(match[2] as string) : null;
      return match && slot !== null ? { jobId: decodeURIComponent(match[1] as string), slot } : null;
    },

    signedOutputFileUrl(jobId, slot, name) {
      const file = basename(name) || 'file';
      return fileUrl(`${outputPrefixOf(jobId, slot)}${file}`, file);
    },
  };
}
