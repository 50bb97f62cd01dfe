import { CorrelationMismatch, InvalidResumeValue } from './interrupt.errors';
import type { InterruptFacts } from './interrupt.commands';
import { isJsonObject, jsonEqual } from './json-value.util';

/**
 * Checks an external event `{eventPayload, correlation?}`. Matching is exact per key (spec gap I3):
 * every key the event's `correlation` names must exist on the interrupt's `data.correlation` with
 * an equal value; keys it leaves out are not compared. A missing `correlation` is accepted: the
 * caller is authenticated and addressed the interrupt by run and node (or by a signed token).
 * @throws {@link InvalidResumeValue} for a malformed body; {@link CorrelationMismatch} otherwise.
 */
export function checkExternalEvent(interrupt: InterruptFacts, value: unknown): void {
  if (!isJsonObject(value) || !Object.hasOwn(value, 'eventPayload')) {
    throw InvalidResumeValue.at('/eventPayload', 'is required');
  }
  const { correlation } = value;
  if (correlation === undefined) return;
  if (!isJsonObject(correlation)) throw InvalidResumeValue.at('/correlation', 'must be an object');
  const data = isJsonObject(interrupt.data) ? interrupt.data : {};
  const expected = isJsonObject(data.correlation) ? data.correlation : {};
  const mismatched = Object.keys(correlation).filter(
    (k) =>
      correlation[k] !== undefined &&
      (!Object.hasOwn(expected, k) || !jsonEqual(correlation[k], expected[k])),
  );
  if (mismatched.length) {
    throw new CorrelationMismatch(
      interrupt.interruptId,
      typeof data.eventType === 'string' ? data.eventType : undefined,
      mismatched,
    );
  }
}
