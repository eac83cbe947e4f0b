export interface SendResult {
  /** The receiver's status; null when there was no answer. */
  status: number | null;
  error: string | null;
  /** True when retrying cannot help (the URL is refused by policy). */
  permanent: boolean;
}

/** POSTs a signed delivery: node's HTTP client in both modes. */
export type WebhookSender = (request: { url: string; body: string; headers: Record<string, string>; timeoutMs?: number }) => Promise<SendResult>;
