const MASK = '[redacted]';

/**
 * Replaces every occurrence of each secret in `text` by a mask, so a server echoing a request
 * header or a key in its error body cannot leak it into an error message or a log line.
 */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) result = result.split(secret).join(MASK);
  }
  return result;
}
