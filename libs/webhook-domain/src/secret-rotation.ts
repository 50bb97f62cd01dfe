import { newWebhookSecret } from './signature';
import { newStandardWebhooksSecret } from './standard-webhooks';

/** The variable that sets how long a rotated-out secret keeps signing beside the new one. */
export const SECRET_ROTATION_OVERLAP_ENV = 'WEBHOOK_SECRET_ROTATION_OVERLAP_SECONDS';

/** The overlap when the variable is unset: 24 hours. */
export const DEFAULT_SECRET_ROTATION_OVERLAP_SECONDS = 86_400;

/**
 * `overlapSeconds` of a rotation (v2 webhooks.md §Standard Webhooks "Rotation"): for this long after
 * `rotateWebhookSecret`, deliveries are signed with both secrets. 1 s to 7 days.
 *
 * @throws Error when the variable is set but is not an integer from 1 to 604,800, so a
 *   misconfigured host fails at start.
 */
export function secretRotationOverlapSeconds(
  env: Readonly<Record<string, string | undefined>> = process.env,
): number {
  const raw = env[SECRET_ROTATION_OVERLAP_ENV]?.trim();
  if (raw === undefined || raw === '') return DEFAULT_SECRET_ROTATION_OVERLAP_SECONDS;
  if (!/^[1-9]\d{0,5}$/.test(raw) || Number(raw) > 604_800) {
    throw new Error(`${SECRET_ROTATION_OVERLAP_ENV} must be an integer from 1 to 604800, got '${raw}'`);
  }
  return Number(raw);
}

/**
 * The secret a rotation mints: of the subscription's form, so its schemes keep verifying — a
 * `whsec_` secret for one opted into `standard-webhooks-1`, 64 hex characters otherwise.
 */
export function rotatedSecret(standardWebhooks: boolean, random?: (n: number) => Buffer): string {
  return standardWebhooks ? newStandardWebhooksSecret(random) : newWebhookSecret(random);
}

/**
 * The secret that still signs beside the current one at `nowMs`: the previous secret while its
 * overlap lasts (`until` in the future), none otherwise.
 */
export function previousSecretInOverlap<T>(
  previous: T | undefined,
  untilMs: number | undefined,
  nowMs: number,
): T | undefined {
  return previous !== undefined && untilMs !== undefined && nowMs < untilMs ? previous : undefined;
}
