import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { INTERRUPT_KINDS, suspendReasonFor, V1_INTERRUPT_KINDS, waitingStatusFor } from './interrupt';
import { RUN_STATUSES } from './run-status';

const suspendRequest = JSON.parse(
  readFileSync(resolve(__dirname, 'schemas/suspend-request.schema.json'), 'utf8'),
) as { properties: { kind: { enum: string[] } } };

describe('interrupt vocabulary', () => {
  it('has the kinds of suspend-request.schema.json (interrupt.md, RFC 0094), in its order, as v1 kinds', () => {
    expect([...V1_INTERRUPT_KINDS]).toEqual(suspendRequest.properties.kind.enum);
  });

  it("adds RFC 0199's credential as the ninth kind (v2 interrupt.md), waiting for input", () => {
    expect([...INTERRUPT_KINDS]).toEqual([...suspendRequest.properties.kind.enum, 'credential']);
    expect(waitingStatusFor('credential')).toBe('waiting-input');
  });

  it('waits in a run status of the snapshot schema for every kind', () => {
    for (const kind of INTERRUPT_KINDS) expect(RUN_STATUSES).toContain(waitingStatusFor(kind));
  });

  it('suspends the three conversation kinds for conversation input, the rest by their kind', () => {
    const renamed = INTERRUPT_KINDS.filter((kind) => suspendReasonFor(kind) !== kind);
    expect(renamed).toEqual(INTERRUPT_KINDS.filter((kind) => kind.startsWith('conversation.')));
    expect(new Set(renamed.map(suspendReasonFor))).toEqual(new Set(['conversation-input']));
  });
});
