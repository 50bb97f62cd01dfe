/** The canonical base64url alphabet, unpadded (RFC 4648 §5). */
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Encodes bytes (or UTF-8 text) as unpadded base64url. */
export function toBase64Url(value: Buffer | string): string {
  return (typeof value === 'string' ? Buffer.from(value, 'utf8') : value).toString('base64url');
}

/**
 * Decodes canonical unpadded base64url, or returns `undefined`. Node's decoder is lenient (it
 * accepts padding, the standard alphabet, whitespace and non-zero trailing bits), so one byte
 * string would have many spellings; a token has exactly one, which the round trip enforces.
 */
export function fromBase64Url(text: string): Buffer | undefined {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}
