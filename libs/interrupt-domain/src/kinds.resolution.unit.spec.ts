import { given, opened, resolveWith } from './interrupt.given.spec';

describe('clarification answers', () => {
  const questions = {
    questions: [
      { id: 'q1', question: 'Favourite colour?' },
      { id: 'q2', question: 'How many?', schema: { type: 'integer', minimum: 1 } },
    ],
  };
  const clarification = opened('clarification', questions);

  it('accepts the map form and resumes it as submitted', () => {
    const next = given(clarification)
      .when(resolveWith({ answers: { q1: 'blue', q2: 3 } }))
      .next();
    expect(next).toMatchObject({ status: 'resolved', resumeValue: { answers: { q1: 'blue', q2: 3 } } });
  });

  it('accepts the array form', () => {
    const value = {
      answers: [
        { id: 'q1', answer: 'blue' },
        { id: 'q2', answer: 2 },
      ],
    };
    expect(given(clarification).when(resolveWith(value)).next()).toMatchObject({
      status: 'resolved',
      resumeValue: value,
    });
  });

  it('accepts the conformance fixture answer', () => {
    const fixture = opened('clarification', {
      questions: [{ id: 'q1', question: 'What is your favorite color?' }],
    });
    expect(
      given(fixture)
        .when(resolveWith({ answers: { q1: 'blue' } }))
        .next().status,
    ).toBe('resolved');
  });

  it.each([
    [{ answers: { q1: 'blue' } }, '/answers/q2', 'is not answered'],
    [{ answers: { q1: 'blue', q2: 1, q3: 'x' } }, '/answers/q3', 'is not a question of this interrupt'],
    [{ answers: { q1: 'blue', q2: 0 } }, '/answers/q2', 'must be >= 1'],
    [
      {
        answers: [
          { id: 'q1', answer: 'a' },
          { id: 'q1', answer: 'b' },
          { id: 'q2', answer: 1 },
        ],
      },
      '/answers/1/id',
      'answers q1 twice',
    ],
    [{ answers: [{ id: 'q1' }] }, '/answers/0', 'must be {id, answer}'],
    [{ answers: 'blue' }, '/answers', expect.stringContaining('must be an object') as unknown],
    [{}, '/answers', expect.stringContaining('must be an object') as unknown],
  ])('refuses %j (%s %s)', (value, path, message) => {
    const error = given(clarification).when(resolveWith(value)).thenRefuses('validation_error');
    expect(error.details?.errors).toEqual(expect.arrayContaining([{ path, message }]));
  });

  it('refuses a non-object value', () => {
    given(clarification).when(resolveWith('blue')).thenRefuses('validation_error');
  });
});

describe('external-event correlation', () => {
  const event = opened('external-event', {
    eventType: 'stripe.checkout.completed',
    correlation: { sessionId: 'cs_1', account: { id: 7 } },
  });

  it('accepts an event without correlation (authenticated caller addressed the interrupt)', () => {
    expect(
      given(event)
        .when(resolveWith({ eventPayload: { paid: true } }, 'stripe'))
        .next(),
    ).toMatchObject({
      status: 'resolved',
      resumeValue: { eventPayload: { paid: true } },
      resolvedBy: 'stripe',
    });
  });

  it('accepts a correlation naming a subset of keys with equal values', () => {
    expect(
      given(event)
        .when(resolveWith({ eventPayload: 1, correlation: { account: { id: 7 } } }))
        .next().status,
    ).toBe('resolved');
    expect(
      given(event)
        .when(resolveWith({ eventPayload: 1, correlation: { sessionId: 'cs_1', account: { id: 7 } } }))
        .next().status,
    ).toBe('resolved');
  });

  it('refuses a different value with correlation_mismatch, the run keeps waiting', () => {
    const step = given(event).when(resolveWith({ eventPayload: 1, correlation: { sessionId: 'cs_2' } }));
    step.thenRefuses('correlation_mismatch', {
      mismatchedKeys: ['sessionId'],
      eventType: 'stripe.checkout.completed',
      interruptId: 'r1:gate:0',
    });
    expect(given(event).state.status).toBe('pending');
  });

  it('refuses a key the interrupt does not have', () => {
    given(event)
      .when(resolveWith({ eventPayload: 1, correlation: { orderId: 'o1' } }))
      .thenRefuses('correlation_mismatch', { mismatchedKeys: ['orderId'] });
  });

  it.each([
    [{}],
    [{ correlation: { sessionId: 'cs_1' } }],
    [null],
    [{ eventPayload: 1, correlation: 'cs_1' }],
  ])('refuses the malformed body %j', (value) => {
    given(event).when(resolveWith(value)).thenRefuses('validation_error');
  });
});
