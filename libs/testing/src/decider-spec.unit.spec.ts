import { AssertionError } from 'node:assert';
import { DomainError, type Decider } from '@openwop/kernel';
import { deciderSpec } from './decider-spec';

// A counter that refuses to go past 2: small enough to see every branch of the helper.
type Command = { type: 'Add'; by: number } | { type: 'Reset' };
type Event = { type: 'added'; data: { by: number } } | { type: 'reset'; data: Record<string, never> };
type State = { total: number };

class TooMuch extends DomainError {
  constructor(total: number) {
    super('validation_error', 'too much', { total, limits: [{ max: 2 }] });
  }
}

const counter: Decider<Command, Event, State> = {
  initialState: () => ({ total: 0 }),
  decide(command, state) {
    if (command.type === 'Reset') return state.total === 0 ? [] : [{ type: 'reset', data: {} }];
    if (state.total + command.by > 2) throw new TooMuch(state.total + command.by);
    return [{ type: 'added', data: { by: command.by } }];
  },
  evolve: (state, event) => (event.type === 'added' ? { total: state.total + event.data.by } : { total: 0 }),
};

const added = (by: number): Event => ({ type: 'added', data: { by } });
const spec = deciderSpec(counter);

describe('deciderSpec', () => {
  it('given nothing, decides on the initial state', () => {
    expect(spec.given().state).toEqual({ total: 0 });
    expect(
      spec
        .given()
        .when({ type: 'Add', by: 1 })
        .then([added(1)]),
    ).toEqual([added(1)]);
  });

  it('given events, folds them; given { state }, starts there', () => {
    expect(spec.given([added(1), added(1)]).state).toEqual({ total: 2 });
    spec
      .given({ state: { total: 2 } })
      .when({ type: 'Reset' })
      .then([{ type: 'reset', data: {} }]);
    expect(
      spec
        .given([added(1)])
        .when({ type: 'Add', by: 1 })
        .nextState(),
    ).toEqual({ total: 2 });
  });

  it('then fails when the decided events differ', () => {
    expect(() =>
      spec
        .given()
        .when({ type: 'Add', by: 1 })
        .then([added(2)]),
    ).toThrow(AssertionError);
    expect(() => spec.given().when({ type: 'Add', by: 1 }).then([])).toThrow(AssertionError);
  });

  it('thenNothingHappened fails unless nothing was decided', () => {
    spec.given().when({ type: 'Reset' }).thenNothingHappened();
    expect(() =>
      spec
        .given([added(1)])
        .when({ type: 'Reset' })
        .thenNothingHappened(),
    ).toThrow(AssertionError);
  });

  it('thenThrows checks the class or a partial shape, and returns the error', () => {
    const when = spec.given([added(2)]).when({ type: 'Add', by: 1 });
    expect(when.thenThrows(TooMuch).details).toEqual({ total: 3, limits: [{ max: 2 }] });
    when.thenThrows({ code: 'validation_error', details: { limits: [{ max: 2 }] } });
    expect(() => when.thenThrows({ code: 'validation_error', details: { total: 4 } })).toThrow(
      AssertionError,
    );
    expect(() => when.thenThrows({ details: { limits: [] } })).toThrow(AssertionError);
    expect(() => when.thenThrows(RangeError)).toThrow(AssertionError);
  });

  it('thenThrows fails when the command is accepted', () => {
    expect(() => spec.given().when({ type: 'Add', by: 1 }).thenThrows()).toThrow(
      /expected the command to be refused/,
    );
  });

  it('runs the check on every decided event', () => {
    const seen: Event[] = [];
    const checked = deciderSpec(counter, { check: (event) => void seen.push(event) });
    checked.given().when({ type: 'Add', by: 2 }).decided();
    expect(seen).toEqual([added(2)]);
    const refusing = deciderSpec(counter, {
      check: () => {
        throw new Error('not wire-valid');
      },
    });
    expect(() =>
      refusing
        .given()
        .when({ type: 'Add', by: 1 })
        .then([added(1)]),
    ).toThrow('not wire-valid');
  });
});
