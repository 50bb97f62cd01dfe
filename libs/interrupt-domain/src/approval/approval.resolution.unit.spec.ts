import { approvalData, given, NOW, opened, resolveWith } from '../interrupt.given.spec';
import type { InterruptEvent } from '../interrupt.events';
import { resumeDecisionOf } from '../resume-decision';

const gate = (over: Record<string, unknown> = {}) => opened('approval', approvalData(over));

/** Applies resolves in order by principal and returns the state after each. */
function votes(start: InterruptEvent, ...steps: [principal: string, value: unknown][]) {
  let events: InterruptEvent[] = [start];
  return steps.map(([principal, value]) => {
    const step = given(...events).when(resolveWith(value, principal));
    events = [...events, ...step.events()];
    return step.next();
  });
}

describe('approval gate', () => {
  describe('the five actions', () => {
    it('accept resolves with decidedBy from the principal and decidedAt from the clock', () => {
      given(gate())
        .when(resolveWith({ action: 'accept', feedback: 'ok' }, 'alice'))
        .then([
          {
            type: 'interrupt.vote-recorded',
            data: {
              type: 'approval.received',
              action: 'accept',
              feedback: 'ok',
              decidedBy: 'alice',
              decidedAt: NOW,
            },
          },
          {
            type: 'interrupt.resolved',
            data: {
              resumeValue: { action: 'accept', feedback: 'ok', decidedBy: 'alice', decidedAt: NOW },
              resolvedBy: 'alice',
              resolvedAt: NOW,
            },
          },
        ]);
    });

    it('reject resolves rejected', () => {
      expect(
        given(gate())
          .when(resolveWith({ action: 'reject' }))
          .next(),
      ).toMatchObject({ status: 'resolved', resumeValue: { action: 'reject', decidedBy: 'alice' } });
    });

    it('refine keeps structured feedback', () => {
      const refineFeedback = { scope: 'section', sectionPath: '/body', tags: ['tone'], text: 'softer' };
      expect(
        given(gate())
          .when(resolveWith({ action: 'refine', refineFeedback }))
          .next(),
      ).toMatchObject({ resumeValue: { action: 'refine', refineFeedback } });
    });

    it('refine with only string feedback is normalized to whole-scope refineFeedback', () => {
      expect(
        given(gate())
          .when(resolveWith({ action: 'refine', feedback: 'shorter' }))
          .next(),
      ).toMatchObject({
        resumeValue: { action: 'refine', refineFeedback: { scope: 'whole', text: 'shorter' } },
      });
    });

    it('structured refineFeedback supersedes string feedback', () => {
      const next = given(gate())
        .when(resolveWith({ action: 'refine', feedback: 'x', refineFeedback: { scope: 'whole', text: 'y' } }))
        .next();
      expect(next).toMatchObject({ resumeValue: { refineFeedback: { scope: 'whole', text: 'y' } } });
    });

    it.each([
      [{ action: 'refine' }, '/refineFeedback'],
      [{ action: 'refine', refineFeedback: { scope: 'all' } }, '/refineFeedback/scope'],
      [{ action: 'refine', refineFeedback: { scope: 'section' } }, '/refineFeedback/sectionPath'],
      [{ action: 'refine', refineFeedback: { scope: 'items', itemIds: [] } }, '/refineFeedback/itemIds'],
      [{ action: 'refine', refineFeedback: 'text' }, '/refineFeedback'],
      [{ action: 'edit-accept' }, '/editedArtifactData'],
      [{ action: 'accept', feedback: 3 }, '/feedback'],
      [{ action: 'ask' }, '/question'],
      [{ action: 'approve' }, '/action'],
      [{ action: 'edit' }, '/action'],
      [{}, '/action'],
    ])('refuses %j with validation_error at %s', (value, path) => {
      const error = given(gate()).when(resolveWith(value)).thenRefuses('validation_error');
      expect(error.details?.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    });

    it.each([null, 'accept', ['accept'], 42])('refuses the non-object body %j', (value) => {
      given(gate()).when(resolveWith(value)).thenRefuses('validation_error');
    });

    it('edit-accept carries the edited artifact', () => {
      expect(
        given(gate())
          .when(resolveWith({ action: 'edit-accept', editedArtifactData: { body: 'hi' } }))
          .next(),
      ).toMatchObject({
        resumeValue: { action: 'edit-accept', editedArtifactData: { body: 'hi' } },
      });
    });

    it('refuses an action the gate does not offer', () => {
      const error = given(gate({ actions: ['accept', 'reject'] }))
        .when(resolveWith({ action: 'refine', feedback: 'x' }))
        .thenRefuses('validation_error');
      expect(error.details?.errors).toEqual([expect.objectContaining({ path: '/action' })]);
      given(gate({ actions: ['accept', 'reject'] }))
        .when(resolveWith({ action: 'ask', question: 'why?' }))
        .thenRefuses('validation_error');
      given(gate({ actions: ['accept', 'reject'] }))
        .when(resolveWith({ action: 'edit-accept', editedArtifactData: 1 }))
        .thenRefuses('validation_error');
    });

    it('refuses an answer with a field an approval answer does not have, naming it, and stays pending', () => {
      const error = given(gate())
        .when(resolveWith({ action: 'accept', extra: 1, 'a/b': 2 }))
        .thenRefuses('validation_error');
      expect(error.details?.errors).toEqual([
        expect.objectContaining({ path: '/extra' }),
        expect.objectContaining({ path: '/a~1b' }),
      ]);
      expect(
        given(gate())
          .when(resolveWith({ action: 'accept', decidedAt: '2020-01-01T00:00:00.000Z', feedback: 'ok' }))
          .next(),
      ).toMatchObject({ status: 'resolved' });
    });

    it('offers edit-accept when actions list edit or edit-accept', () => {
      for (const actions of [['edit'], ['edit-accept']]) {
        expect(
          given(gate({ actions }))
            .when(resolveWith({ action: 'edit-accept', editedArtifactData: 1 }))
            .next().status,
        ).toBe('resolved');
      }
    });

    it('a gate without usable actions offers accept and reject', () => {
      expect(
        given(gate({ actions: undefined }))
          .when(resolveWith({ action: 'accept' }))
          .next().status,
      ).toBe('resolved');
      given(gate({ actions: 'all' }))
        .when(resolveWith({ action: 'refine', feedback: 'x' }))
        .thenRefuses('validation_error');
    });
  });

  describe('decidedBy', () => {
    it('accepts a client decidedBy equal to the principal', () => {
      expect(
        given(gate())
          .when(resolveWith({ action: 'accept', decidedBy: 'alice' }, 'alice'))
          .next(),
      ).toMatchObject({ resumeValue: { decidedBy: 'alice' } });
    });

    it('refuses a client decidedBy naming someone else', () => {
      const error = given(gate())
        .when(resolveWith({ action: 'accept', decidedBy: 'mallory' }, 'alice'))
        .thenRefuses('validation_error');
      expect(error.details?.errors).toEqual([expect.objectContaining({ path: '/decidedBy' })]);
    });

    it('overwrites a client decidedAt with the host clock', () => {
      const next = given(gate())
        .when(resolveWith({ action: 'accept', decidedAt: '1999-01-01T00:00:00Z' }))
        .next();
      expect(next).toMatchObject({ resumeValue: { decidedAt: NOW } });
    });
  });

  describe('legacy decision normalization (interrupt.md table)', () => {
    it.each([
      [{ decision: 'approved' }, { action: 'accept' }],
      [
        { decision: 'approved', feedback: 'fine' },
        { action: 'accept', feedback: 'fine' },
      ],
      [
        { decision: 'rejected', feedback: 'needs work' },
        { action: 'refine', refineFeedback: { scope: 'whole', text: 'needs work' } },
      ],
      [{ decision: 'rejected' }, { action: 'reject' }],
      [
        { decision: 'rejected', feedback: '   ' },
        { action: 'reject', feedback: '   ' },
      ],
    ])('%j → %j', (legacy, normalized) => {
      const next = given(gate()).when(resolveWith(legacy)).next();
      expect(next).toMatchObject({
        status: 'resolved',
        resumeValue: { ...normalized, decidedBy: 'alice', decidedAt: NOW },
      });
      expect((next as { resumeValue: object }).resumeValue).not.toHaveProperty('decision');
    });

    it('rejected + feedback on a gate without refine becomes reject with the feedback', () => {
      const next = given(gate({ actions: ['accept', 'reject'] }))
        .when(resolveWith({ decision: 'rejected', feedback: 'no' }))
        .next();
      expect(next).toMatchObject({ resumeValue: { action: 'reject', feedback: 'no' } });
    });

    it.each(['timeout', 'cancelled', 'maybe'])('refuses decision %s', (decision) => {
      given(gate()).when(resolveWith({ decision })).thenRefuses('validation_error');
    });

    it('an explicit action wins over a legacy decision', () => {
      expect(
        given(gate())
          .when(resolveWith({ action: 'accept', decision: 'rejected' }))
          .next(),
      ).toMatchObject({ resumeValue: { action: 'accept' } });
    });
  });

  describe('ask side channel', () => {
    it('records the question and stays pending', () => {
      const step = given(gate()).when(resolveWith({ action: 'ask', question: 'Which version?' }, 'bob'));
      step.then([
        {
          type: 'interrupt.ask-recorded',
          data: { type: 'ask', question: 'Which version?', askedBy: 'bob', askedAt: NOW },
        },
      ]);
      expect(step.next().status).toBe('pending');
    });

    it('hands asks and votes to the engine in order with the final decision', () => {
      const [, , done] = votes(
        gate(),
        ['bob', { action: 'ask', question: 'Q1?' }],
        ['bob', { action: 'ask', question: 'Q2?' }],
        ['alice', { action: 'accept' }],
      );
      expect(resumeDecisionOf(done!)?.notes).toEqual([
        {
          type: 'ask',
          question: 'Q1?',
          askedBy: 'bob',
          askedAt: NOW,
          nodeId: 'gate',
          interruptId: 'r1:gate:0',
        },
        {
          type: 'ask',
          question: 'Q2?',
          askedBy: 'bob',
          askedAt: NOW,
          nodeId: 'gate',
          interruptId: 'r1:gate:0',
        },
        {
          type: 'approval.received',
          action: 'accept',
          decidedBy: 'alice',
          decidedAt: NOW,
          nodeId: 'gate',
          interruptId: 'r1:gate:0',
        },
      ]);
    });
  });

  describe('quorum', () => {
    it('requiredApprovals 2: the first accept stays pending, a second principal closes it', () => {
      const [first, second] = votes(
        gate({ requiredApprovals: 2 }),
        ['alice', { action: 'accept' }],
        ['bob', { action: 'accept', feedback: 'lgtm' }],
      );
      expect(first!.status).toBe('pending');
      expect(second).toMatchObject({
        status: 'resolved',
        resolvedBy: 'bob',
        resumeValue: {
          action: 'accept',
          feedback: 'lgtm',
          decidedBy: 'bob',
          votes: [
            { action: 'accept', decidedBy: 'alice', decidedAt: NOW },
            { action: 'accept', feedback: 'lgtm', decidedBy: 'bob', decidedAt: NOW },
          ],
        },
      });
    });

    it('refuses a second vote by the same principal with validation_error (already voted)', () => {
      const start = gate({ requiredApprovals: 2 });
      const events: InterruptEvent[] = [
        start,
        ...given(start)
          .when(resolveWith({ action: 'accept' }, 'alice'))
          .events(),
      ];
      expect(given(...events).state.status).toBe('pending');
      const error = given(...events)
        .when(resolveWith({ action: 'reject' }, 'alice'))
        .thenRefuses('validation_error');
      expect(error.message).toMatch(/already voted/);
    });

    describe('one person counts once, whatever the route', () => {
      const viaLink = (value: unknown) => resolveWith(value, 'token:k-1', { via: 'token' });

      it.each([
        ['accept', { action: 'accept' }],
        ['reject', { action: 'reject' }],
        ['a legacy decision', { decision: 'approved' }],
      ])('refuses a signed-link %s on a quorum gate with 403 forbidden, and records nothing', (_, value) => {
        const error = given(gate({ requiredApprovals: 2 }))
          .when(viaLink(value))
          .thenRefuses('forbidden', {
            interruptId: 'r1:gate:0',
            requiredApprovals: 2,
            reason: 'quorum_vote_requires_principal',
          });
        expect(error.message).toMatch(/own API key/);
      });

      it('the attack: an API vote, then a link vote, leaves the gate pending with one vote; a second principal closes it', () => {
        const start = gate({ requiredApprovals: 2 });
        const afterApi = [
          start,
          ...given(start)
            .when(resolveWith({ action: 'accept' }, 'alice', { via: 'api' }))
            .events(),
        ];
        given(...afterApi)
          .when(viaLink({ action: 'accept' }))
          .thenRefuses('forbidden');
        const still = given(...afterApi).state;
        expect(still).toMatchObject({ status: 'pending', notes: [{ decidedBy: 'alice' }] });
        expect(
          given(...afterApi)
            .when(resolveWith({ action: 'accept' }, 'bob', { via: 'api' }))
            .next(),
        ).toMatchObject({ status: 'resolved', resolvedBy: 'bob' });
      });

      it('refuses a link vote on an attested quorum gate too (a link attests for nobody)', () => {
        given(gate({ requiredApprovals: 2, voterAttribution: 'attested' }))
          .when(viaLink({ action: 'accept', voter: 'carol' }))
          .thenRefuses('forbidden');
      });

      it('refuses a link vote under majority as under single-veto', () => {
        given(gate({ requiredApprovals: 3, rejectionPolicy: 'majority' }))
          .when(viaLink({ action: 'reject' }))
          .thenRefuses('forbidden');
      });

      it('a link may still ask on a quorum gate (a question is not a vote), and still answers a single-approver gate', () => {
        expect(
          given(gate({ requiredApprovals: 2 }))
            .when(viaLink({ action: 'ask', question: 'Which draft?' }))
            .next().status,
        ).toBe('pending');
        expect(
          given(gate())
            .when(viaLink({ action: 'accept' }))
            .next(),
        ).toMatchObject({ status: 'resolved', resolvedBy: 'token:k-1' });
      });

      it.each(['api', 'legacy-approvals', undefined] as const)(
        'a principal counts once across routes: a vote via %s after one via api is "already voted"',
        (via) => {
          const start = gate({ requiredApprovals: 2 });
          const events = [
            start,
            ...given(start)
              .when(resolveWith({ action: 'accept' }, 'alice', { via: 'api' }))
              .events(),
          ];
          const error = given(...events)
            .when(resolveWith({ action: 'accept' }, 'alice', via ? { via } : {}))
            .thenRefuses('validation_error');
          expect(error.message).toMatch(/already voted/);
        },
      );
    });

    it('single-veto (default): one reject closes the gate rejected', () => {
      const [a, b] = votes(
        gate({ requiredApprovals: 3 }),
        ['alice', { action: 'accept' }],
        ['bob', { action: 'reject', feedback: 'no' }],
      );
      expect(a!.status).toBe('pending');
      expect(b).toMatchObject({
        status: 'resolved',
        resolvedBy: 'bob',
        resumeValue: {
          action: 'reject',
          feedback: 'no',
          votes: [{ action: 'accept' }, { action: 'reject' }],
        },
      });
    });

    it('single-veto: a refine counts as a veto', () => {
      const [a] = votes(gate({ requiredApprovals: 2 }), ['alice', { action: 'refine', feedback: 'redo' }]);
      expect(a).toMatchObject({ status: 'resolved', resumeValue: { action: 'refine' } });
    });

    it('majority: a reject does not close the gate until rejects reach requiredApprovals', () => {
      const [a, b, c] = votes(
        gate({ requiredApprovals: 2, rejectionPolicy: 'majority' }),
        ['alice', { action: 'reject' }],
        ['bob', { action: 'accept' }],
        ['carol', { action: 'reject', feedback: 'agree with alice' }],
      );
      expect([a!.status, b!.status]).toEqual(['pending', 'pending']);
      expect(c).toMatchObject({
        status: 'resolved',
        resolvedBy: 'carol',
        resumeValue: { action: 'reject', decidedBy: 'carol' },
      });
    });

    it('majority: accepts reaching requiredApprovals first close the gate accepted', () => {
      const [, , c] = votes(
        gate({ requiredApprovals: 2, rejectionPolicy: 'majority' }),
        ['alice', { action: 'accept' }],
        ['bob', { action: 'reject' }],
        ['carol', { action: 'edit-accept', editedArtifactData: { v: 2 } }],
      );
      expect(c).toMatchObject({
        status: 'resolved',
        resumeValue: { action: 'edit-accept', editedArtifactData: { v: 2 }, decidedBy: 'carol' },
      });
      expect(resumeDecisionOf(c!)?.notes).toHaveLength(3);
    });

    it('approversList is advisory: a principal outside it may vote', () => {
      expect(
        given(gate({ approversList: ['admin'] }))
          .when(resolveWith({ action: 'accept' }, 'someone'))
          .next().status,
      ).toBe('resolved');
    });

    it('a single-approver gate has no votes list in the resume value', () => {
      const next = given(gate())
        .when(resolveWith({ action: 'accept' }))
        .next();
      expect((next as { resumeValue: object }).resumeValue).not.toHaveProperty('votes');
    });
  });

  describe('resumeSchema', () => {
    const schema = {
      type: 'object',
      properties: { action: { enum: ['accept', 'reject'] } },
      required: ['action'],
      additionalProperties: false,
    };

    it('checks what the approver submitted, before host-stamped fields', () => {
      const withSchema = opened('approval', approvalData(), { resumeSchema: schema });
      expect(
        given(withSchema)
          .when(resolveWith({ action: 'accept' }))
          .next().status,
      ).toBe('resolved');
      expect(
        given(withSchema)
          .when(resolveWith({ decision: 'approved' }))
          .next().status,
      ).toBe('resolved');
      given(withSchema)
        .when(resolveWith({ action: 'accept', feedback: 'extra' }))
        .thenRefuses('validation_error');
    });

    it('does not check an ask against it', () => {
      const withSchema = opened('approval', approvalData(), { resumeSchema: schema });
      expect(
        given(withSchema)
          .when(resolveWith({ action: 'ask', question: 'why?' }))
          .next().status,
      ).toBe('pending');
    });
  });
});
