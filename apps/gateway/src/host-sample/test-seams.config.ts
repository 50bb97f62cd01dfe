import { conversationLimits } from '@openwop/contracts';

/**
 * Environment switch of the conformance-only seams under `/v1/host/sample/*`
 * (host-sample-test-seams.md: production hosts answer `404` there unless an env gate is set; the
 * reference host's gate is this variable).
 */
export const TEST_SEAM_ENV = 'OPENWOP_TEST_SEAM_ENABLED';

/**
 * Whether the multi-party conversation seam is served: `OPENWOP_TEST_SEAM_ENABLED=true` and the host
 * advertises `multiPartyConversation.supported` (the seam's capability gate). Off by default.
 */
export function multiPartySeamEnabled(
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  if (env[TEST_SEAM_ENV]?.trim().toLowerCase() !== 'true') return false;
  const limits = conversationLimits(env);
  return limits.conversationPrimitive !== false && limits.multiParty !== false;
}
