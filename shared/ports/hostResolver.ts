/** Resolves a host name to its IP addresses (an IP literal resolves to itself). */
export type HostResolver = (host: string) => Promise<string[]>;
