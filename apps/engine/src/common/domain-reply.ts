import type { CommandReply } from '@openwop/contracts';
import { DomainError } from '@openwop/kernel';

/** Runs a decision; a {@link DomainError} becomes the refusal reply, anything else propagates (retry). */
export async function refusingDomainErrors<T>(
  decide: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; reply: CommandReply<never> }> {
  try {
    return { ok: true, value: await decide() };
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    return {
      ok: false,
      reply: {
        ok: false,
        error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) },
      },
    };
  }
}
