import { deliveryIdOf, runTagsOf, subscriptionMatches } from './subscription-filter';

describe('subscription filter', () => {
  const sub = { webhookId: 'wh_1', tenant: 't1', events: ['run.completed', 'node.suspended'], tags: [] };

  it('matches an event type it asked for, in its own tenant only', () => {
    expect(subscriptionMatches(sub, { tenant: 't1', tags: [] }, 'run.completed')).toBe(true);
    expect(subscriptionMatches(sub, { tenant: 't1', tags: [] }, 'run.started')).toBe(false);
    expect(subscriptionMatches(sub, { tenant: 't2', tags: [] }, 'run.completed')).toBe(false);
  });

  it('with tags, only runs carrying one of them', () => {
    const tagged = { ...sub, tags: ['prod', 'eu'] };
    expect(subscriptionMatches(tagged, { tenant: 't1', tags: ['eu'] }, 'run.completed')).toBe(true);
    expect(subscriptionMatches(tagged, { tenant: 't1', tags: ['dev'] }, 'run.completed')).toBe(false);
    expect(subscriptionMatches(tagged, { tenant: 't1', tags: [] }, 'run.completed')).toBe(false);
    expect(subscriptionMatches(tagged, { tenant: 't2', tags: ['eu'] }, 'run.completed')).toBe(false);
  });

  it('a delivery id is stable per (webhook, event) and distinct otherwise', () => {
    expect(deliveryIdOf('wh_1', 'e1')).toBe(deliveryIdOf('wh_1', 'e1'));
    expect(deliveryIdOf('wh_1', 'e1')).not.toBe(deliveryIdOf('wh_1', 'e2'));
    expect(deliveryIdOf('wh_1', 'e1')).not.toBe(deliveryIdOf('wh_2', 'e1'));
    expect(deliveryIdOf('wh_1', 'e1')).toMatch(/^whd_[0-9a-f]{32}$/);
  });

  it('reads run tags from run.started metadata', () => {
    expect(runTagsOf({ metadata: { tags: ['a', 3, 'b'] } })).toEqual(['a', 'b']);
    expect(runTagsOf({})).toEqual([]);
    expect(runTagsOf(undefined)).toEqual([]);
  });
});
