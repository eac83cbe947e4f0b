import type { TableId } from '../shared/adapters/aws/dynamodb/tables.js';

/**
 * `markBudgetWarned`: read, and only record on an organization that its budget.warning was sent
 * (one attribute, by a conditioned UpdateItem): the roles that end jobs need no more of the
 * table that holds webhook secrets and limits.
 */
export type TableAccess = 'read' | 'markBudgetWarned' | 'readWrite';
/** Weakest first: merging two sets keeps the stronger. */
const TABLE_ACCESS_ORDER: readonly TableAccess[] = ['read', 'markBudgetWarned', 'readWrite'];
/**
 * The bucket's areas: code bundles (`bundles/<version>.tar.gz`), bundle uploads
 * (`uploads/<organization>/<upload>`), output files (`files/<job>/<index>/<name>`), and text
 * too large for a DynamoDB item (`spill/<job>/...`).
 */
export type BucketArea = 'bundles/' | 'uploads/' | 'files/' | 'spill/';

/**
 * What one role may do, as data: infra/grants.ts turns it into IAM statements on named
 * resources (never `*` for data), and the tests read it back from the templates.
 */
export interface Permissions {
  tables?: Partial<Record<TableId, TableAccess>>;
  bucket?: { read?: BucketArea[]; write?: BucketArea[] };
  /**
   * The versions' queues (`<prefix>v-*`): send a job, consume jobs, or create a queue (the
   * deployer, which also reads the DLQ's ARN for the new queue's redrive policy).
   */
  queues?: ('send' | 'consume' | 'create' | 'depth')[];
  /** Start a webhook delivery (an execution of the webhook state machine). */
  startDeliveries?: boolean;
  /** Tell a delivery's execution running from one that ended (the sweeper). */
  describeDeliveries?: boolean;
  /** Start an image build of the CodeBuild project. */
  startBuilds?: boolean;
  /** Read the image builds' logs (CloudWatch Logs, `/aws/codebuild/<project>`), to copy them to the version's log. */
  readBuildLogs?: boolean;
  /**
   * ECS: `describe` the versions' services (worker counts in views); `deploy` a version
   * (register its task definition, create or update its service, pass the task roles, register
   * its Application Auto Scaling target and policy); `protect` its own task from scale-in
   * while it runs jobs (a worker, through the ECS agent's endpoint); `stop` a version whose
   * tasks cannot start (its service and scalable target set to zero); `scale` a version anew
   * (its edited replica bounds: its scalable target, step policies and queue alarms again);
   * `wake` a version's service to a task when a job is queued on it, or set it to what its
   * queue needs (the sweeper), unless it is held at zero.
   */
  ecs?: ('describe' | 'deploy' | 'protect' | 'stop' | 'scale' | 'wake')[];
  /**
   * spill/ access follows table access (bucketAccess); true narrows it to reading, for a role
   * that updates those tables without ever writing a large value.
   */
  readsSpillOnly?: boolean;
}

/** Every route authenticates: the API key by hash, then its organization. */
export const AUTHENTICATION: Permissions = { tables: { apiKeys: 'read', organizations: 'read' } };

const READ_FUNCTIONS: Permissions['tables'] = { functions: 'read', versions: 'read' };
const READ_JOBS: Permissions['tables'] = { jobs: 'read', jobOutputs: 'read' };
/**
 * A job read shows its File outputs with presigned GET URLs, which S3 honours only if the
 * signing role may read them: files/ read, and nothing else of the bucket.
 */
const SIGN_FILES: Permissions['bucket'] = { read: ['files/'] };
/**
 * A job's completion notifies observers: the webhook service stores deliveries (and starts
 * them), the usage service records the job's compute time once, and the budgets may send
 * budget.warning (to the job's function's webhooks too), marking the organization warned.
 */
const COMPLETE_JOBS: Permissions = {
  tables: {
    jobs: 'readWrite',
    jobOutputs: 'read',
    versions: 'read',
    functions: 'read',
    organizations: 'markBudgetWarned',
    deliveries: 'readWrite',
    usageJobs: 'readWrite',
    usageHours: 'readWrite',
  },
  bucket: SIGN_FILES,
  startDeliveries: true,
};

/**
 * Each route's needs beyond authentication, by route name (shared/http/routeTable.ts). What a
 * route needs follows from the services it calls: see shared/services and the AWS adapters.
 */
export const ROUTE_PERMISSIONS: Record<string, Permissions> = {
  getOrganization: {},
  // The probe reads one organization by id (AUTHENTICATION's organizations read covers it).
  health: {},
  listFunctions: { tables: READ_FUNCTIONS, ecs: ['describe'] },
  getFunction: { tables: READ_FUNCTIONS, ecs: ['describe'] },
  editFunction: { tables: { functions: 'readWrite', versions: 'read' }, ecs: ['describe'] },
  listVersions: { tables: READ_FUNCTIONS, ecs: ['describe'] },
  getVersion: { tables: READ_FUNCTIONS, ecs: ['describe'] },
  // Stores the version's new replica bounds and registers them with its ECS service's scaling.
  editVersion: { tables: { functions: 'read', versions: 'readWrite' }, ecs: ['describe', 'scale'] },
  // Signs an upload URL: the URL can do what this role can, so it may write uploads/ only.
  createUpload: { bucket: { write: ['uploads/'] } },
  // Stores the bundle (inline, or copied from an upload it reads through first, checking the
  // bundle limits), writes the function and a queued version, starts its image build.
  deployVersion: {
    tables: { functions: 'readWrite', versions: 'readWrite' },
    bucket: { read: ['uploads/'], write: ['bundles/'] },
    startBuilds: true,
    ecs: ['describe'],
  },
  // A job list remembers where each page ended (page_ends), for the walk that goes on from it.
  listFunctionJobs: { tables: { functions: 'read', ...READ_JOBS, pageEnds: 'readWrite' }, bucket: SIGN_FILES },
  listVersionJobs: { tables: { ...READ_FUNCTIONS, ...READ_JOBS, pageEnds: 'readWrite' }, bucket: SIGN_FILES },
  // An Idempotency-Key is claimed (or released, when the push fails) beside the job.
  // A job queued on an idle version starts its service's first task (taskScaling.ts).
  // The organization's budget reads its spend this month (usage_hours).
  pushJob: { tables: { ...READ_FUNCTIONS, jobs: 'readWrite', idempotencyKeys: 'readWrite', usageHours: 'read' }, queues: ['send'], ecs: ['wake'] },
  // A push (as pushJob's), after reading the original job and checking its File uploads are still kept.
  replayJob: { tables: { ...READ_FUNCTIONS, jobs: 'readWrite', usageHours: 'read' }, bucket: { read: ['uploads/'] }, queues: ['send'], ecs: ['wake'] },
  getJob: { tables: READ_JOBS, bucket: SIGN_FILES },
  listJobs: { tables: { ...READ_JOBS, pageEnds: 'readWrite' }, bucket: SIGN_FILES },
  // Waits by reading the job (polling JobEvents): reads only.
  awaitJob: { tables: READ_JOBS, bucket: SIGN_FILES },
  // Reads the job, its outputs (signing file URLs) and its log lines, every second for a bounded wait.
  streamJobEvents: { tables: { ...READ_JOBS, logs: 'read' }, bucket: SIGN_FILES },
  // The worker running a cancelled job notices the status itself: no ECS call.
  cancelJob: COMPLETE_JOBS,
  // Finds the file by listing its prefix, then signs a GET URL for it (a redirect).
  getJobFile: { tables: { jobs: 'read' }, bucket: { read: ['files/'] } },
  readLogs: { tables: { jobs: 'read', versions: 'read', logs: 'read' } },
  streamLogEvents: { tables: { jobs: 'read', versions: 'read', logs: 'read' } },
  getUsage: { tables: { usageHours: 'read' } },
  getFunctionUsage: { tables: { functions: 'read', usageHours: 'read' } },
  // Names each function used (by id) as owner/name.
  getUsagePerFunction: { tables: { functions: 'read', usageHours: 'read' } },
  getVersionUsage: { tables: { ...READ_FUNCTIONS, usageHours: 'read' } },
  // The job and, aggregated, the jobs it pushed (by_parent), each priced by its version.
  getJobUsage: { tables: { jobs: 'read', versions: 'read' } },
  getCredits: { tables: { usageHours: 'read' } },
  // Counts the organization's queued and processing jobs (the active index).
  getConcurrency: { tables: { jobs: 'read' } },
  getConcurrencyStats: { tables: { functions: 'read', jobs: 'read' } },
  // From the deployment's configuration (its capacity providers): no AWS call.
  getComputeAvailability: {},
  listJobWebhooks: { tables: { jobs: 'read', deliveries: 'read' } },
  resendJobWebhooks: { tables: { ...READ_JOBS, deliveries: 'readWrite' }, bucket: SIGN_FILES, startDeliveries: true },
  // An organization made before secrets existed gets one on first read: both may write.
  getWebhookSecret: { tables: { organizations: 'readWrite' } },
  rotateWebhookSecret: { tables: { organizations: 'readWrite' } },
  // Made from the route table alone.
  getOpenApiDocument: {},
  getApiReference: {},
  // The organization's keys, by its index (authentication already reads api_keys).
  listApiKeys: {},
  // Lists the keys (the cap on active ones), then writes the new key.
  createApiKey: { tables: { apiKeys: 'readWrite' } },
  // Lists the keys, revokes one, reads the others again (and may undo the revocation).
  revokeApiKey: { tables: { apiKeys: 'readWrite' } },
  // The operator API: organizations' limits (a scan to list them; an update to set them).
  listOrganizationLimits: {},
  getOrganizationLimits: {},
  setOrganizationLimits: { tables: { organizations: 'readWrite' } },
};

/**
 * The roles that serve no route. Those that end jobs make their webhooks' first attempts
 * themselves (inlineFirstAttempt.ts), signed with the organization's secret: organizations read.
 */
export const ROLE_PERMISSIONS = {
  /**
   * The webhook state machine's Deliver step: one signed attempt, recorded on the delivery (a
   * payload is only read), its File outputs' URLs presigned for that attempt.
   */
  deliver: { tables: { deliveries: 'readWrite', organizations: 'readWrite' }, readsSpillOnly: true, bucket: SIGN_FILES },
  /**
   * The build-event Lambda: moves versions through their build, ends the jobs that waited for
   * a failed build (with their webhooks) or queues them once ready, and deploys a built
   * version: its queue, task definition, ECS service and Application Auto Scaling.
   */
  buildEvents: {
    tables: { versions: 'readWrite', jobs: 'readWrite', jobOutputs: 'read', deliveries: 'readWrite', logs: 'readWrite', organizations: 'read' },
    queues: ['create', 'send'],
    startDeliveries: true,
    readBuildLogs: true,
    ecs: ['describe', 'deploy', 'wake'],
  },
  /**
   * The task-event Lambda: counts a ready version's failed tasks in its log and record; after
   * several in a row, ends it in error, stops its tasks and ends its queued jobs (with their webhooks).
   */
  taskEvents: {
    tables: { versions: 'readWrite', jobs: 'readWrite', jobOutputs: 'read', deliveries: 'readWrite', logs: 'readWrite', organizations: 'read' },
    startDeliveries: true,
    ecs: ['stop'],
  },
  /**
   * The sweeper, every minute: starts again the builds of versions stuck in queued (moving
   * them to building), restarts overdue deliveries (recording an attempt for a run that ended),
   * and ends queued jobs whose queue message is about to expire, with their webhooks. Such a
   * job never started, so no usage is recorded. It also sets each ready version's ECS service
   * to the tasks its queue needs (the queue's depth), which is how services scale in.
   */
  sweeper: {
    tables: { versions: 'readWrite', jobs: 'readWrite', jobOutputs: 'read', deliveries: 'readWrite', organizations: 'read' },
    startBuilds: true,
    startDeliveries: true,
    describeDeliveries: true,
    queues: ['depth'],
    ecs: ['wake'],
  },
  /**
   * A worker task (the ECS task role): runs jobs from its version's queue, writes their
   * outputs, logs, usage and webhook deliveries, stores output files, pushes child jobs.
   */
  worker: {
    tables: {
      jobs: 'readWrite',
      jobOutputs: 'readWrite',
      logs: 'readWrite',
      deliveries: 'readWrite',
      usageJobs: 'readWrite',
      usageHours: 'readWrite',
      // Read, and a started worker clears its version's count of failed tasks.
      versions: 'readWrite',
      functions: 'read',
      // Marked once a month: the organization's budget.warning sent.
      organizations: 'markBudgetWarned',
    },
    // uploads/: a File input given as an upload of the job's organization (POST /v2/uploads); and
    // written: a File a job made and passes to another function, kept as an upload of its organization.
    bucket: { read: ['bundles/', 'files/', 'uploads/'], write: ['files/', 'uploads/'] },
    queues: ['consume', 'send'],
    startDeliveries: true,
    // A child job queued on an idle version wakes its service, as a push does.
    ecs: ['protect', 'wake'],
  },
} satisfies Record<string, Permissions>;

/** Two permission sets as one: the union, the stronger table access winning. */
export function mergePermissions(...sets: Permissions[]): Permissions {
  const merged: Required<Permissions> = {
    tables: {},
    bucket: { read: [], write: [] },
    queues: [],
    startDeliveries: false,
    describeDeliveries: false,
    startBuilds: false,
    readBuildLogs: false,
    ecs: [],
    readsSpillOnly: sets.length > 0,
  };
  for (const set of sets) {
    for (const [table, access] of Object.entries(set.tables ?? {}) as [TableId, TableAccess][]) {
      const current = merged.tables[table];
      if (current === undefined || TABLE_ACCESS_ORDER.indexOf(access) > TABLE_ACCESS_ORDER.indexOf(current)) merged.tables[table] = access;
    }
    merged.bucket.read = union(merged.bucket.read, set.bucket?.read);
    merged.bucket.write = union(merged.bucket.write, set.bucket?.write);
    merged.queues = union(merged.queues, set.queues);
    merged.ecs = union(merged.ecs, set.ecs);
    merged.startDeliveries ||= set.startDeliveries ?? false;
    merged.describeDeliveries ||= set.describeDeliveries ?? false;
    merged.startBuilds ||= set.startBuilds ?? false;
    merged.readBuildLogs ||= set.readBuildLogs ?? false;
    merged.readsSpillOnly &&= set.readsSpillOnly ?? false;
  }
  return merged;
}

const union = <T>(a: T[] | undefined, b: T[] | undefined): T[] => [...new Set([...(a ?? []), ...(b ?? [])])];

/** The tables whose items point into spill/ when a value is too large for them (the DynamoDB store's spill.ts). */
const SPILLING_TABLES: readonly TableId[] = ['jobs', 'jobOutputs', 'deliveries'];

/**
 * The bucket areas a role reads and writes: its own, plus spill/ wherever it reads (or writes)
 * a table whose items may spill there, so no role can read a job it cannot resolve.
 */
export function bucketAccess(permissions: Permissions): { read: BucketArea[]; write: BucketArea[] } {
  const spilling = SPILLING_TABLES.map((table) => permissions.tables?.[table]);
  const reads: BucketArea[] = spilling.some((access) => access !== undefined) ? ['spill/'] : [];
  const writes: BucketArea[] = spilling.includes('readWrite') && !permissions.readsSpillOnly ? ['spill/'] : [];
  return { read: union(permissions.bucket?.read, reads), write: union(permissions.bucket?.write, writes) };
}

/** A route's whole permission set: authentication plus its own. */
export function routePermissions(routeName: string): Permissions {
  const own = ROUTE_PERMISSIONS[routeName];
  if (!own) throw new Error(`infra/routePermissions.ts has no entry for route "${routeName}": add one (what its services read and write)`);
  return mergePermissions(AUTHENTICATION, own);
}
