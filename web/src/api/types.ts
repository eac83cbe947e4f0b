/** The API's answers, as far as the dashboard reads them (docs/api.md has them whole). */
export type JobStatus = 'queued' | 'processing' | 'finished' | 'error' | 'cancelled';
export type BuildStatus = 'queued' | 'building' | 'pushing' | 'deploying' | 'ready' | 'error';

export interface InputOutput {
  type: string;
  name: string;
  data: unknown;
  description: string;
  is_optional: boolean;
}

export interface Workers {
  starting: number;
  setup: number;
  active: number;
  idle: number;
  awaiting_resources: number;
}

export interface Version {
  id: string;
  build_status: BuildStatus;
  queued_at: string | null;
  built_at: string | null;
  ready_at: string | null;
  compute_type: string;
  python_version?: string;
  python_packages: string[];
  system_packages: string[];
  gpu: boolean;
  split: number;
  inputs: InputOutput[];
  outputs: InputOutput[];
  minimum_replicas: number;
  maximum_replicas: number | null;
  current_workers: Workers | null;
  stream_output: boolean | null;
}

export interface SluiceFunction {
  name: string;
  owner_name: string;
  visibility: 'public' | 'private' | null;
  title: string | null;
  description: string | null;
  tags: string[] | null;
  readme: string | null;
  latest_version: Version;
  function_type: 'function' | 'workflow' | null;
}

export interface ChildJob {
  id: string;
  status: JobStatus;
  created_at: string;
}

export interface Job {
  id: string;
  function_id: string;
  function: { name: string; owner_name: string };
  status: JobStatus;
  created_at: string | null;
  started_at: string | null;
  completed_at: string | null;
  error: string | null;
  inputs?: Record<string, unknown>;
  outputs?: (InputOutput | InputOutput[])[];
  children?: Record<string, ChildJob[]>;
  restarts?: Record<string, unknown>[] | null;
  /** Sluice: outputs past this answer's byte budget are read on from this offset (docs/api.md, "Large jobs"). */
  next_output_offset?: number;
}

export interface Page<T> {
  data: T[];
  next_offset: number;
}

export interface LogLine {
  message: string;
  timestamp: string;
}

export interface LogPage {
  data: { logs: LogLine[]; labels: { stage: string; job_id: string } }[];
  next_start_time: number | string;
}

export interface MachineUsage {
  compute_seconds: number;
  cost_dollars: number;
}

export type UsageReport = { total_compute_seconds: number; total_cost_dollars: number } & Record<string, MachineUsage | number>;

export interface WebhookDelivery {
  id: string;
  type: string;
  url: string;
  state: string;
  created_at: string;
  next_attempt_at: string | null;
  attempts: { at: string; status: number | null; error: string | null }[];
}

export interface Concurrency {
  num_current: number;
  num_processing: number;
  num_queued: number;
}

/** An API key as its organization sees it (never the secret, except in a create's answer). */
export interface ApiKey {
  id: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  /** Whether it is the key this tab calls with. */
  current: boolean;
}
