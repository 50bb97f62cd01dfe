import { ApiError } from '../common/api.error';
import { admittingMode, messageChunkOf, modeAdmits, parseStreamModes } from './stream-mode.parser';

function rejection(raw: unknown): ApiError {
  try {
    parseStreamModes(raw);
  } catch (error) {
    return error as ApiError;
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be refused`);
}

describe('parseStreamModes', () => {
  it('defaults to updates', () => expect(parseStreamModes(undefined)).toEqual(['updates']));

  it.each([
    ['values', ['values']],
    ['debug', ['debug']],
    ['updates,messages', ['updates', 'messages']],
    [' updates , debug ', ['updates', 'debug']],
    ['updates,updates', ['updates']],
  ])('accepts %j', (raw, modes) => expect(parseStreamModes(raw)).toEqual(modes));

  it.each([
    ['bogus'],
    [''],
    ['updates,'],
    ['values,updates'],
    ['debug,values'],
    [['updates', 'debug']],
    ['UPDATES'],
  ])('refuses %j with 400 unsupported_stream_mode and details.supported', (raw) => {
    const error = rejection(raw);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe('unsupported_stream_mode');
    expect(error.details).toEqual({ supported: ['updates', 'values', 'messages', 'debug'] });
  });

  it('names the unknown mode in the message', () => {
    expect(rejection('messages,tokens').message).toBe("Server does not implement streamMode='tokens'");
  });
});

describe('the mode → event table', () => {
  it.each([
    ['run.started', true, false, true],
    ['run.completed', true, false, true],
    ['node.started', false, false, true],
    ['node.completed', true, false, true],
    ['node.suspended', true, false, true],
    ['interrupt.requested', true, false, true],
    ['interrupt.resolved', true, false, true],
    ['clarification.requested', true, false, true],
    ['conversation.opened', true, true, true],
    ['conversation.exchanged', true, true, true],
    ['conversation.closed', true, true, true],
    ['output.chunk', false, true, true],
    ['variable.changed', false, false, true],
    ['log.appended', false, false, true],
    ['ai.message.chunk', false, true, true],
    ['interrupt.claimed', true, false, true],
    ['interrupt.released', true, false, true],
    ['x-vendor.custom', false, false, true],
  ])('%s: updates %s, messages %s, debug %s', (type, updates, messages, debug) => {
    expect([modeAdmits('updates', type), modeAdmits('messages', type), modeAdmits('debug', type)]).toEqual([
      updates,
      messages,
      debug,
    ]);
    expect(modeAdmits('values', type)).toBe(updates);
  });

  it('picks the first listed mode that admits an event', () => {
    expect(admittingMode(['messages', 'updates'], 'run.started')).toBe('updates');
    expect(admittingMode(['updates', 'debug'], 'log.appended')).toBe('debug');
    expect(admittingMode(['messages'], 'run.started')).toBeUndefined();
  });
});

describe('messageChunkOf', () => {
  it('sends the outputChunk payload with the run id, filling the node id from the event', () => {
    const meta = { conversationId: 'r:chat:0', messageId: 'm1', turnIndex: 1 };
    expect(
      messageChunkOf({ runId: 'r', nodeId: 'chat', payload: { chunk: 'Hel', isLast: false, meta } }),
    ).toEqual({
      nodeId: 'chat',
      runId: 'r',
      chunk: 'Hel',
      isLast: false,
      meta,
    });
    expect(messageChunkOf({ runId: 'r', payload: { nodeId: 'n2', runId: 'other', chunk: '' } })).toEqual({
      nodeId: 'n2',
      runId: 'r',
      chunk: '',
    });
  });
});
