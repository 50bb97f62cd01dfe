/**
 * The recorder's only hook into the real host: the domain modules the services import are replaced
 * (with `jest.mock`, in the recording spec) by the same modules whose deciders also report each call
 * they answered to the tap. Nothing else changes: the services build the commands, load the states,
 * store the decisions and send the follow-ups as they do in production.
 */

/** A call of a decider that returned (a refusal throws and is no step). */
export type TappedCall =
  | {
      readonly stream: 'run';
      readonly command: { readonly type: string; readonly runId: string };
      readonly decision: unknown;
    }
  | {
      readonly stream: 'interrupt';
      readonly command: { readonly type: string };
      readonly prior: unknown;
      readonly events: unknown;
    }
  | {
      readonly stream: 'conversation';
      readonly command: { readonly type: string };
      readonly prior: unknown;
      readonly events: unknown;
    }
  | { readonly stream: 'opened'; readonly opened: Record<string, unknown> };

let sink: ((call: TappedCall) => void) | undefined;

/** Sends every answered decider call to `listener` (undefined: to nobody). */
export function listenToDeciders(listener: ((call: TappedCall) => void) | undefined): void {
  sink = listener;
}

type Fn = (...args: never[]) => unknown;

function replaced<M extends object>(actual: M, wrappers: Partial<Record<keyof M, (original: Fn) => Fn>>): M {
  const copy = { ...actual } as Record<string, unknown>;
  for (const [name, wrap] of Object.entries(wrappers) as [string, (original: Fn) => Fn][])
    copy[name] = wrap(copy[name] as Fn);
  return copy as M;
}

/** `@openwop/engine-domain` whose `decideRun` and `decideFork` report their decisions. */
export function tappedEngineDomain<M extends object>(actual: M): M {
  const run =
    (original: Fn): Fn =>
    async (...args: never[]) => {
      const [command] = args as unknown as [{ type: string; runId: string }];
      const decision = await (original(...args) as Promise<unknown>);
      sink?.({ stream: 'run', command, decision });
      return decision;
    };
  return replaced(actual, { decideRun: run, decideFork: run } as never);
}

/** `@openwop/interrupt-domain` whose `decideInterrupt` reports its events. */
export function tappedInterruptDomain<M extends object>(actual: M): M {
  return replaced(actual, {
    decideInterrupt:
      (original: Fn): Fn =>
      (...args: never[]) => {
        const [command, prior] = args as unknown as [{ type: string }, unknown];
        const events = original(...args);
        sink?.({ stream: 'interrupt', command, prior, events });
        return events;
      },
  } as never);
}

/**
 * `@openwop/conversation-domain` whose `decideConversation` reports its events, and whose
 * `silenceOfOpening` (called once, when the interrupt service holds a conversation the engine
 * opened) reports the `conversation.opened` it is given.
 */
export function tappedConversationDomain<M extends object>(actual: M): M {
  return replaced(actual, {
    decideConversation:
      (original: Fn): Fn =>
      (...args: never[]) => {
        const [command, prior] = args as unknown as [{ type: string }, unknown];
        const events = original(...args);
        sink?.({ stream: 'conversation', command, prior, events });
        return events;
      },
    silenceOfOpening:
      (original: Fn): Fn =>
      (...args: never[]) => {
        const [opened] = args as unknown as [Record<string, unknown>];
        sink?.({ stream: 'opened', opened });
        return original(...args);
      },
  } as never);
}
