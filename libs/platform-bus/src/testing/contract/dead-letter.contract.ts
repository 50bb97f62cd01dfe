import { COMMAND_NOT_APPLIED, Headers, Topics } from '@openwop/contracts';
import type { DeadLetterNotice, IncomingMessage } from '../../bus.port';
import { deadLetterLog } from '../../shared/dead-letter.mapper';
import { expect, it } from '@jest/globals';
import type { ContractContext } from './contract.context';
import { MessageRecorder } from '../message.recorder';
import { uniqueName } from '../unique-name.util';
import { waitFor } from '../wait-for.util';

const MAX_ATTEMPTS = 3;

/** Bounded retries in place, then the dead-letter topic; the partition moves on. */
export function deadLetterContract(ctx: ContractContext): void {
  it(
    `retries a failing message ${MAX_ATTEMPTS} times in place, dead-letters it, then handles the next one`,
    async () => {
      const topic = uniqueName('dlq');
      const dead = new MessageRecorder();
      ctx.track(
        await ctx.bus().subscribe({
          group: uniqueName('dlq-watch'),
          topics: [Topics.deadLetter],
          handler: dead.handler('dlq'),
        }),
      );
      const attempts: number[] = [];
      const good = new MessageRecorder();
      ctx.track(
        await ctx.bus().subscribe({
          group: uniqueName('dlq-g'),
          topics: [topic],
          fromBeginning: true,
          maxAttempts: MAX_ATTEMPTS,
          handler: good.handler('good', async (message) => {
            if ((message.value as { poison?: boolean }).poison) {
              attempts.push(message.attempt);
              throw new Error('poison message rejected');
            }
          }),
        }),
      );

      const key = 'run-dlq';
      await ctx.bus().publish(topic, [
        { key, value: { poison: true, n: 1 }, headers: { 'x-test': 'kept' } },
        { key, value: { poison: false, n: 2 } },
      ]);

      await waitFor(() => good.count === 1, {
        timeoutMs: ctx.options.deliveryTimeoutMs,
        what: 'the next message',
      });
      expect(attempts).toEqual([1, 2, 3]);
      const mine = () => dead.by('dlq').filter((m) => m.headers[Headers.deadLetterTopic] === topic);
      await waitFor(() => mine().length === 1, {
        timeoutMs: ctx.options.deliveryTimeoutMs,
        what: 'the dead letter',
      });
      const [letter] = mine();
      expect(letter).toMatchObject({
        key,
        value: { poison: true, n: 1 },
        headers: {
          'x-test': 'kept',
          [Headers.deadLetterTopic]: topic,
          [Headers.attempts]: String(MAX_ATTEMPTS),
        },
      });
      expect(letter?.headers[Headers.deadLetterReason]).toContain('poison message rejected');
      expect(good.by('good')[0]?.value).toEqual({ poison: false, n: 2 });
      expect(attempts).toHaveLength(MAX_ATTEMPTS); // still exactly maxAttempts calls
    },
    ctx.testTimeoutMs,
  );
}

/**
 * The serve side of the failure rule: a request whose handler keeps throwing is answered at once
 * with `command_not_applied` (not left to time out) and dead-lettered; a refusal nobody waits for
 * (no reply topic) is dead-lettered too. Each dead letter is logged in one line and reported to
 * `onDeadLetter`.
 */
export function serveDeadLetterContract(ctx: ContractContext): void {
  const watchDeadLetters = async (topic: string) => {
    const dead = new MessageRecorder();
    ctx.track(
      await ctx.bus().subscribe({
        group: uniqueName('dlq-watch'),
        topics: [Topics.deadLetter],
        handler: dead.handler('dlq'),
      }),
    );
    return () => dead.by('dlq').filter((m) => m.headers[Headers.deadLetterTopic] === topic);
  };
  const captureLog = () => {
    const lines: string[] = [];
    const write = deadLetterLog.write;
    deadLetterLog.write = (line) => {
      lines.push(line);
      write(line);
    };
    return { lines, restore: () => (deadLetterLog.write = write) };
  };

  it(
    'answers a request whose handler kept throwing with command_not_applied, and dead-letters it',
    async () => {
      const topic = uniqueName('rpc-poison');
      const dead = await watchDeadLetters(topic);
      const notices: { message: IncomingMessage; notice: DeadLetterNotice }[] = [];
      const log = captureLog();
      try {
        ctx.track(
          await ctx.peer().serve({
            group: uniqueName('rpc-poison-g'),
            topic,
            maxAttempts: MAX_ATTEMPTS,
            handler: async () => {
              throw new Error('cannot apply this one');
            },
            onDeadLetter: async (message, notice) => {
              notices.push({ message, notice });
            },
          }),
        );
        const reply = await ctx
          .bus()
          .request(
            topic,
            { key: 'run-poison', value: { id: 'cmd-1', type: 'thing.do' } },
            { timeoutMs: ctx.options.deliveryTimeoutMs },
          );
        expect(reply).toMatchObject({
          ok: false,
          error: {
            code: COMMAND_NOT_APPLIED,
            details: {
              messageId: 'cmd-1',
              messageType: 'thing.do',
              cause: 'exhausted',
              attempts: MAX_ATTEMPTS,
            },
          },
        });
        await waitFor(() => dead().length === 1, {
          timeoutMs: ctx.options.deliveryTimeoutMs,
          what: 'the dead letter',
        });
        expect(dead()[0]!.headers).toMatchObject({
          [Headers.deadLetterCause]: 'exhausted',
          [Headers.attempts]: String(MAX_ATTEMPTS),
        });
        expect(dead()[0]!.headers[Headers.deadLetterReason]).toContain('cannot apply this one');
        // The serve's own hook runs after the reply is published, so the requester can see the reply first.
        await waitFor(() => notices.length > 0, {
          timeoutMs: ctx.options.deliveryTimeoutMs,
          what: 'the dead-letter notice',
        });
        expect(notices.map((n) => [n.message.key, n.notice.cause, n.notice.attempts])).toEqual([
          ['run-poison', 'exhausted', MAX_ATTEMPTS],
        ]);
        const line = log.lines.find((l) => l.includes('cmd-1'));
        expect(line).toContain('thing.do');
        expect(line).toContain('"run-poison"');
        expect(line).toContain('cannot apply this one');
      } finally {
        log.restore();
      }
    },
    ctx.testTimeoutMs,
  );

  it(
    'dead-letters a refusal of a command that has no requester (sent from an outbox)',
    async () => {
      const topic = uniqueName('rpc-unanswered');
      const dead = await watchDeadLetters(topic);
      const notices: DeadLetterNotice[] = [];
      ctx.track(
        await ctx.peer().serve({
          group: uniqueName('rpc-unanswered-g'),
          topic,
          fromBeginning: true,
          handler: async (message) =>
            (message.value as { bad?: boolean }).bad
              ? { ok: false, error: { code: 'validation_error', message: 'no good' } }
              : { ok: true, data: {} },
          onDeadLetter: async (_message, notice) => {
            notices.push(notice);
          },
        }),
      );
      await ctx.bus().publish(topic, [
        { key: 'run-u', value: { id: 'cmd-bad', bad: true } },
        { key: 'run-u', value: { id: 'cmd-good' } },
      ]);
      await waitFor(() => dead().length === 1 && notices.length === 1, {
        timeoutMs: ctx.options.deliveryTimeoutMs,
        what: 'the dead letter of the refusal',
      });
      expect(dead()[0]).toMatchObject({ key: 'run-u', value: { id: 'cmd-bad', bad: true } });
      expect(dead()[0]!.headers[Headers.deadLetterCause]).toBe('refused');
      expect(dead()[0]!.headers[Headers.deadLetterReason]).toContain('validation_error: no good');
      expect(notices[0]).toMatchObject({ cause: 'refused', attempts: 1 });
    },
    ctx.testTimeoutMs,
  );
}
