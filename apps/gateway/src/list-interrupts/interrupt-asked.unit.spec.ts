import { askedOf } from './interrupt-asked';

describe('askedOf: what an inbox row asks', () => {
  it('says an approval by its title and description', () => {
    expect(
      askedOf('approval', { title: 'Publish?', description: 'The Q3 post', artifactType: 'doc' }, 'gate'),
    ).toEqual({
      title: 'Publish?',
      question: 'The Q3 post',
      summary: 'Approve doc',
    });
  });

  it('lists the questions of a clarification and counts them', () => {
    expect(
      askedOf('clarification', { questions: [{ id: 'q1', question: 'Which region?' }, { id: 'q2' }] }, 'ask'),
    ).toEqual({
      title: 'Clarification',
      question: 'Which region? · q2',
      summary: '2 questions',
    });
  });

  it('names the event an external-event waits for', () => {
    expect(askedOf('external-event', { eventType: 'payment.settled' }, 'wait').title).toBe(
      'Waits for payment.settled',
    );
  });

  it('falls back to the kind and node, and cuts long text', () => {
    expect(askedOf('custom', null, 'n1')).toEqual({ title: 'custom at n1' });
    const long = askedOf('custom', { title: 'x'.repeat(1000) }, 'n1').title;
    expect(long).toHaveLength(280);
  });
});
