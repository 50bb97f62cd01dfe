/**
 * The signed token of a `callbackUrl` (`{publicUrl}/v1/interrupts/{token}`), or the argument itself
 * when it is already a bare token. Lets a client hand either to the token routes.
 */
export function tokenFromCallbackUrl(tokenOrUrl: string): string {
  const match = /\/v1\/interrupts\/([^/?#]+)/.exec(tokenOrUrl);
  return match?.[1] !== undefined ? decodeURIComponent(match[1]) : tokenOrUrl;
}

/** The callback URL of a token on `baseUrl`, as the host hands it to an external system. */
export function callbackUrlOf(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/v1/interrupts/${encodeURIComponent(token)}`;
}
