/** Who is calling: the organization an API key belongs to. */
export interface Principal {
  organizationId: string;
  organizationName: string;
  /** The id of the key the request came with; absent for work done on an organization's behalf (a job pushing a job). */
  keyId?: string;
}
