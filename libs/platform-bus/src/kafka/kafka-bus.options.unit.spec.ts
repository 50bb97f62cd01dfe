import { MAX_GATHER_MS } from '../bus.port';
import { GATHER_MIN_BYTES, gatherTuning } from './kafka-bus.options';

describe('gatherTuning', () => {
  it('leaves the consumer settings alone without gatherMs', () => {
    expect(gatherTuning(undefined)).toEqual({});
    expect(gatherTuning(0)).toEqual({});
    expect(gatherTuning(Number.NaN)).toEqual({});
  });

  it('makes a fetch wait up to gatherMs for a quarter MiB', () => {
    expect(gatherTuning(250)).toEqual({ maxWaitTimeInMs: 250, minBytes: GATHER_MIN_BYTES });
  });

  it('caps the wait, since the consumer loop also sends the heartbeats', () => {
    expect(gatherTuning(60_000)).toEqual({ maxWaitTimeInMs: MAX_GATHER_MS, minBytes: GATHER_MIN_BYTES });
  });
});
