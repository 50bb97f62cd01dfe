import { stamp, upcast, type VersionedShape } from '@openwop/kernel';
import { initialInterruptState, type InterruptState } from './interrupt.state';

/** A held interrupt (any state but `none`): what the `interrupts` table stores. */
type HeldInterruptState = Exclude<InterruptState, { status: 'none' }>;

/**
 * The stored shape of the interrupt aggregate (`interrupts.state`, ADR 0031). Version 0 is the
 * unversioned document of the releases before versions; version 1 is the same shape, tagged.
 */
export const INTERRUPT_STATE_SHAPE: VersionedShape<HeldInterruptState> = {
  name: 'interrupt state',
  current: 1,
  oldestReadable: 0,
  steps: { 0: (doc) => doc },
};

/** The document an interrupt's state is stored as: the state, stamped with the current version. */
export function interruptStateDocument<S extends HeldInterruptState>(
  state: S,
): S & { readonly schemaVersion: number } {
  return stamp(INTERRUPT_STATE_SHAPE, state) as S & { readonly schemaVersion: number };
}

/**
 * A stored interrupt state document (or none) as today's state, upcast from any readable version.
 * The one way `interrupts.state` is read.
 *
 * @throws UnreadableSchemaVersion (`@openwop/kernel`) for a version this build does not read.
 */
export function interruptStateFromDocument<S extends InterruptState = InterruptState>(
  doc: object | null | undefined,
): S {
  return (doc ? upcast(INTERRUPT_STATE_SHAPE, doc) : initialInterruptState()) as S;
}
