import { Headers } from '@openwop/contracts';
import type { IncomingMessage, OutgoingMessage } from '../bus.port';
import {
  deadLetterLine,
  deadLetterLog,
  deadLetterOf,
  identify,
  sendToDeadLetter,
} from './dead-letter.mapper';

const message = (over: Partial<IncomingMessage> = {}): IncomingMessage => ({
  topic: 'engine.commands',
  partition: 0,
  offset: '7',
  key: 'run-1',
  value: { id: 'cmd-1', type: 'run.resume', data: {} },
  headers: { 'x-kept': 'yes' },
  attempt: 5,
  ...over,
});

describe('dead-letter mapper', () => {
  it('copies key, value and headers, and adds reason, cause, source topic, group and attempts', () => {
    const letter = deadLetterOf(message(), new TypeError('bad'), 5, 'exhausted', 'engine');
    expect(letter).toEqual({
      key: 'run-1',
      value: { id: 'cmd-1', type: 'run.resume', data: {} },
      headers: {
        'x-kept': 'yes',
        [Headers.deadLetterReason]: 'TypeError: bad',
        [Headers.deadLetterCause]: 'exhausted',
        [Headers.deadLetterTopic]: 'engine.commands',
        [Headers.deadLetterGroup]: 'engine',
        [Headers.attempts]: '5',
      },
    });
  });

  it('names a message by its headers, else by its envelope, else not at all', () => {
    expect(
      identify(message({ headers: { [Headers.messageId]: 'h-id', [Headers.messageType]: 'h-type' } })),
    ).toEqual({
      id: 'h-id',
      type: 'h-type',
    });
    expect(identify(message())).toEqual({ id: 'cmd-1', type: 'run.resume' });
    expect(identify(message({ value: 'not json' }))).toEqual({});
  });

  it('logs one line naming the message, the key, where it came from and a bounded reason', () => {
    const line = deadLetterLine(message(), 'engine', 'exhausted', 5, `QueryFailedError: ${'x'.repeat(1000)}`);
    expect(
      line.startsWith(
        'dead-lettered run.resume cmd-1 of key "run-1" from engine.commands (group engine, exhausted, 5 attempts): QueryFailedError: x',
      ),
    ).toBe(true);
    expect(line.length).toBeLessThan(500);
    expect(line.endsWith('…')).toBe(true);
    expect(deadLetterLine(message({ value: 42 }), 'g', 'undecodable', 0, 'SyntaxError')).toContain(
      'message (no id)',
    );
  });

  it('sends, counts, logs and reports in that order; a failed send reports nothing', async () => {
    const sent: OutgoingMessage[] = [];
    const lines: string[] = [];
    const reported: string[] = [];
    const write = deadLetterLog.write;
    deadLetterLog.write = (line) => void lines.push(line);
    try {
      await sendToDeadLetter({
        publish: async (_topic, ms) => void sent.push(...ms),
        deadLetterTopic: 'dlq',
        group: 'engine',
        message: message(),
        cause: 'refused',
        error: 'refused run_terminal: done',
        attempts: 1,
        code: 'run_terminal',
        onDeadLetter: async (_m, notice) =>
          void reported.push(`${notice.cause}/${notice.code}/${notice.reason}`),
      });
      expect(sent.map((m) => m.headers?.[Headers.deadLetterCause])).toEqual(['refused']);
      expect(lines).toHaveLength(1);
      expect(reported).toEqual(['refused/run_terminal/refused run_terminal: done']);

      await expect(
        sendToDeadLetter({
          publish: async () => {
            throw new Error('broker away');
          },
          deadLetterTopic: 'dlq',
          group: 'engine',
          message: message(),
          cause: 'exhausted',
          error: new Error('boom'),
          attempts: 5,
          onDeadLetter: async () => void reported.push('second'),
        }),
      ).rejects.toThrow('broker away');
      expect(reported).toHaveLength(1);
      expect(lines).toHaveLength(1);
    } finally {
      deadLetterLog.write = write;
    }
  });
});
