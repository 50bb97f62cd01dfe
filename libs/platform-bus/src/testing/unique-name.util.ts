import { randomBytes } from 'node:crypto';

/** A topic or group name no other test run uses: `<prefix>-<time>-<random>` (valid in Kafka). */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}
