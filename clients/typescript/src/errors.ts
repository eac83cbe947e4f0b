/**
 * An answer that is not a success: its HTTP status and the service's `detail` (a sentence, or
 * for a 422 the list of problems, each with its place `loc`).
 */
export class SluiceError extends Error {
  override readonly name = 'SluiceError';

  constructor(
    readonly status: number,
    readonly detail: string | { loc: (string | number)[]; msg: string; type: string }[],
  ) {
    super(`${status}: ${typeof detail === 'string' ? detail : detail.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; ')}`);
  }

  /** The service's error body, or the status text when the body is not one. */
  static async from(response: Response): Promise<SluiceError> {
    const text = await response.text().catch(() => '');
    try {
      const body = JSON.parse(text) as { detail?: unknown };
      if (typeof body.detail === 'string' || Array.isArray(body.detail)) return new SluiceError(response.status, body.detail as SluiceError['detail']);
    } catch {
      // Not JSON: a proxy's page, or nothing.
    }
    return new SluiceError(response.status, text.trim() || response.statusText || 'Request failed.');
  }
}
