/** A non-2xx answer from an OpenWOP host, carrying the spec's error envelope. */
export class OpenWopApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(`${status} ${code}: ${message}`);
    this.name = 'OpenWopApiError';
  }
}
