/**
 * The token of an `Authorization: Bearer <token>` header, or `undefined` when the header is
 * missing, uses another scheme, or is malformed (empty token, spaces inside it).
 */
export function parseBearerToken(header: string | readonly string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer ([^\s]+)\s*$/i.exec(header.trim());
  return match?.[1];
}
