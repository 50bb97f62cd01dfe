import { CorrelationMismatch, InvalidResumeValue } from './interrupt.errors';
import type { InterruptFacts } from './interrupt.commands';
import { isJsonObject, jsonEqual } from './json-value.util';

/**
 * Checks an external event and returns the resume value to record. Two forms are accepted:
 *
 * - `{eventPayload, correlation?}` (interrupt.md `ExternalEventResume`). Matching is exact per key
 *   (spec gap I3): every key the event's `correlation` names must exist on the interrupt's
 *   `data.correlation` with an equal value; keys it leaves out are not compared. A missing
 *   `correlation` is accepted: the caller is authenticated and addressed the interrupt by run and
 *   node (or by a signed token). Recorded as sent.
 * - The outside system's own event, bare (an object with neither `eventPayload` nor `correlation`),
 *   when the interrupt has a correlation: the event must carry every correlation key, each with the
 *   interrupt's value (`openwop-interrupt-external-event`, correlation-matched callback). Recorded
 *   as `{eventPayload: <the event>}`.
 *
 * @throws {@link InvalidResumeValue} for a malformed body (a bare event lacking a correlation key
 * among them); {@link CorrelationMismatch} for a correlation value other than the interrupt's.
 */
export function checkExternalEvent(interrupt: InterruptFacts, value: unknown): unknown {
  const data = isJsonObject(interrupt.data) ? interrupt.data : {};
  const expected = isJsonObject(data.correlation) ? data.correlation : {};
  const eventType = typeof data.eventType === 'string' ? data.eventType : undefined;
  if (isBareEvent(value, expected)) {
    const missing = Object.keys(expected).filter((k) => !Object.hasOwn(value, k));
    if (missing.length) {
      throw new InvalidResumeValue(
        `resumeValue needs eventPayload, or the event itself carrying every correlation key (${missing.join(', ')} missing)`,
        missing.map((k) => ({
          path: `/${escapePointer(k)}`,
          message: 'is a correlation key of this interrupt',
        })),
      );
    }
    const mismatched = Object.keys(expected).filter((k) => !jsonEqual(value[k], expected[k]));
    if (mismatched.length) throw new CorrelationMismatch(interrupt.interruptId, eventType, mismatched);
    return { eventPayload: value };
  }
  if (!isJsonObject(value) || !Object.hasOwn(value, 'eventPayload')) {
    throw InvalidResumeValue.at('/eventPayload', 'is required');
  }
  const { correlation } = value;
  if (correlation === undefined) return value;
  if (!isJsonObject(correlation)) throw InvalidResumeValue.at('/correlation', 'must be an object');
  const mismatched = Object.keys(correlation).filter(
    (k) =>
      correlation[k] !== undefined &&
      (!Object.hasOwn(expected, k) || !jsonEqual(correlation[k], expected[k])),
  );
  if (mismatched.length) throw new CorrelationMismatch(interrupt.interruptId, eventType, mismatched);
  return value;
}

/** A non-empty object that is not the `{eventPayload, correlation}` wrapper, for an interrupt with a correlation. */
function isBareEvent(value: unknown, expected: Record<string, unknown>): value is Record<string, unknown> {
  return (
    isJsonObject(value) &&
    Object.keys(expected).length > 0 &&
    Object.keys(value).length > 0 &&
    !Object.hasOwn(value, 'eventPayload') &&
    !Object.hasOwn(value, 'correlation')
  );
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
