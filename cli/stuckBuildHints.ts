/**
 * Where to look when a version stays in one build state: what the state waits on, locally and
 * on AWS (resource names with the deployment's prefix, `sluice-` unless it was changed).
 */
export function stuckBuildHints(state: string, functionPath: string, versionId: string): string[] {
  const byState: Record<string, string> = {
    queued:
      'Its build has not started. On AWS: the CodeBuild project may be at its concurrency limit, or its start failed (aws codebuild list-builds-for-project --project-name sluice-image-build).',
    building:
      'It is being built (locally its Python environment, on AWS its image). On AWS, CodeBuild logs in CloudWatch: aws logs tail /aws/codebuild/sluice-image-build --follow.',
    pushing: 'Its image is being pushed to ECR. On AWS, CodeBuild logs in CloudWatch: aws logs tail /aws/codebuild/sluice-image-build --follow.',
    deploying: `Its service is starting. On AWS: the service's events say why no task starts (capacity, GPU vCPU quota, image pull): aws ecs describe-services --cluster sluice-cluster --services v-${versionId} --query 'services[0].events[:5]'.`,
  };
  return [
    ...(byState[state] ? [byState[state]] : []),
    `Its state: GET ${functionPath}/versions/${versionId}; its build log: GET /v2/logs?version_id=${versionId}`,
  ];
}
