/** Where code bundles live: a folder locally, S3 on AWS. */
export interface Artifacts {
  /** Stores a version's bundle (a gzipped tar of the function's directory). */
  putBundle(versionId: string, bundle: Buffer): Promise<void>;
  getBundle(versionId: string): Promise<Buffer | null>;
}
