/** Where code bundles and output files live: a folder locally, S3 on AWS. */
export interface Artifacts {
  /** Stores a version's bundle (a gzipped tar of the function's directory). */
  putBundle(versionId: string, bundle: Buffer): Promise<void>;
  getBundle(versionId: string): Promise<Buffer | null>;
  /** Keeps a file a job produced as its `index`-th output (copied from a local path). */
  putOutputFile(jobId: string, index: number, name: string, sourcePath: string): Promise<void>;
  getOutputFile(jobId: string, index: number): Promise<{ name: string; data: Buffer } | null>;
}
