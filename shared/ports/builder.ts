/**
 * Turns a queued version into a ready one (or an error). Locally, a venv and a code folder;
 * on AWS, CodeBuild, ECR and ECS. The builder moves the version's build_status itself.
 */
export interface Builder {
  /** Starts building; returns at once. Safe to call twice for one version. */
  enqueue(versionId: string): void;
  /** Resolves once no build is running (used on shutdown and in tests). */
  idle(): Promise<void>;
}
