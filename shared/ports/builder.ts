/**
 * Turns a queued version into a ready one (or an error). Locally, a venv and a code folder;
 * on AWS, CodeBuild, ECR and ECS. The builder moves the version's build_status itself.
 */
export interface Builder {
  /**
   * Starts building. Resolves once the build is on its way: on AWS, once CodeBuild has
   * answered and the version moved to building (or the failure to start is recorded), so
   * nothing is left running when a Lambda returns; locally, at once, the build running in
   * the background. Safe to call twice for one version.
   */
  enqueue(versionId: string): Promise<void>;
  /** Resolves once no build is running (used on shutdown and in tests). */
  idle(): Promise<void>;
}
