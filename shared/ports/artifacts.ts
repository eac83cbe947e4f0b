import type { Readable } from 'node:stream';
import type { FileSlot } from '../domain/fileOutputs.js';

/** A bundle upload the client sends itself, kept under its organization's id: no other organization can deploy from it. */
export interface UploadRequest {
  organizationId: string;
  uploadId: string;
  /** The exact number of bytes the URL takes. */
  size: number;
  expiresInS: number;
}

/** An output file's content, read as it is sent: never held in memory whole. */
export interface OutputFileContent {
  name: string;
  size: number;
  stream: Readable;
}

/** Where code bundles and output files live: a folder locally, S3 on AWS. */
export interface Artifacts {
  /** Stores a version's bundle (a gzipped tar of the function's directory). */
  putBundle(versionId: string, bundle: Buffer): Promise<void>;
  /** The version's bundle as a stream (never whole in memory), or null when it has none. */
  readBundle(versionId: string): Promise<AsyncIterable<Uint8Array> | null>;
  /**
   * A URL that takes the upload's bytes by PUT, without an API key, until it expires: a
   * presigned S3 URL on AWS, the local service's own upload URL locally.
   */
  uploadUrl(upload: UploadRequest): Promise<string>;
  /** The size of an upload received for an organization, or null when it has none by that id. */
  uploadSize(organizationId: string, uploadId: string): Promise<number | null>;
  /** A received upload's bytes as a stream, or null when the organization has none by that id. */
  readUpload(organizationId: string, uploadId: string): Promise<AsyncIterable<Uint8Array> | null>;
  /**
   * Keeps a local file's first `size` bytes (its size when checked: a file that grows meanwhile
   * is cut there, one that shrinks fails) as an upload of the organization, as if a client had
   * PUT it: a File a job passes to another function, which the called job reads by its
   * `upload_id`. It expires as uploads do.
   */
  putUploadFile(organizationId: string, uploadId: string, sourcePath: string, size: number): Promise<void>;
  /**
   * Copies a received upload to a version's bundle. The upload stays until it expires, so one
   * upload serves every function of a directory.
   */
  putBundleFromUpload(versionId: string, organizationId: string, uploadId: string): Promise<void>;
  /** Keeps a file a job produced in an output's slot (copied from a local path). */
  putOutputFile(jobId: string, slot: FileSlot, name: string, sourcePath: string): Promise<void>;
  /** The output file's content as a stream, or null when the job has no such file. */
  openOutputFile(jobId: string, slot: FileSlot): Promise<OutputFileContent | null>;
  /**
   * A short-lived URL the output file downloads from without an API key (a presigned S3 GET,
   * locally a signed URL of the service itself), or null when the job has no such file.
   */
  outputFileUrl(jobId: string, slot: FileSlot): Promise<string | null>;
  /**
   * The same kind of URL for an output file known to exist under `name` (the name its output's
   * data gives), made without looking the file up: what a job's File outputs show when read.
   */
  signedOutputFileUrl(jobId: string, slot: FileSlot, name: string): Promise<string>;
  /**
   * The output file one of these download URLs names, its signature and expiry aside (a job of
   * the file's organization may read it anyway), or null for any other URL.
   */
  outputFileOfUrl(url: URL): Promise<OutputFileRef | null>;
}

export interface OutputFileRef {
  jobId: string;
  slot: string;
}
