/** Who is calling: the organization an API key belongs to. */
export interface Principal {
  organizationId: string;
  organizationName: string;
}
