import {
  conversationRefusal,
  validateWorkflowDefinition,
  withDefinitionDefaults,
  type WorkflowDefinition,
} from '@openwop/contracts';
import { buildDiscoveryDocument } from '../discovery/discovery.document';
import { servedGatewayRoutes } from '../discovery/gateway-routes.constants';
import { buildOpenApiDocument } from '../discovery/openapi.document';
import { councilRunId, councilWorkflow, requestPathOf, rosterOf } from './multi-party-seam.council';
import { multiPartySeamEnabled } from './test-seams.config';

const ROSTER = [
  { agentId: 'host:advisor-cfo', name: 'CFO' },
  { agentId: 'host:advisor-cmo' },
  { agentId: 'host:advisor-cto' },
];
const SEAM = [
  'POST /v1/host/sample/conversation/multi-party/open',
  'POST /v1/host/sample/conversation/multi-party/exchange',
];

describe('the multi-party conversation seam (host-sample-test-seams.md)', () => {
  it('is off unless OPENWOP_TEST_SEAM_ENABLED=true, and off whenever multiPartyConversation is not advertised', () => {
    expect(multiPartySeamEnabled({})).toBe(false);
    expect(multiPartySeamEnabled({ OPENWOP_TEST_SEAM_ENABLED: 'yes' })).toBe(false);
    expect(multiPartySeamEnabled({ OPENWOP_TEST_SEAM_ENABLED: 'true' })).toBe(true);
    expect(multiPartySeamEnabled({ OPENWOP_TEST_SEAM_ENABLED: 'true', OPENWOP_MULTI_PARTY: 'off' })).toBe(
      false,
    );
    expect(multiPartySeamEnabled({ OPENWOP_TEST_SEAM_ENABLED: 'true', OPENWOP_CONVERSATIONS: 'off' })).toBe(
      false,
    );
  });

  it('is listed in discovery and documented in OpenAPI exactly when it is served', () => {
    const listed = (on: boolean) =>
      (
        buildDiscoveryDocument({ maxParticipants: 8 }, servedGatewayRoutes(on)).endpoints as {
          method: string;
          path: string;
        }[]
      ).map((e) => `${e.method} ${e.path}`);
    const documented = (on: boolean) =>
      Object.entries(
        (buildOpenApiDocument(servedGatewayRoutes(on)) as { paths: Record<string, object> }).paths,
      ).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    expect(listed(true)).toEqual(expect.arrayContaining(SEAM));
    expect(documented(true)).toEqual(expect.arrayContaining(SEAM));
    for (const route of SEAM) {
      expect(listed(false)).not.toContain(route);
      expect(documented(false)).not.toContain(route);
    }
  });

  it("maps a conversationId to one run per tenant: the same id twice is the same run, another tenant's is another", () => {
    const a = councilRunId('t1', 'conf:multi-party:council-q1');
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(councilRunId('t1', 'conf:multi-party:council-q1')).toBe(a);
    expect(councilRunId('t2', 'conf:multi-party:council-q1')).not.toBe(a);
    expect(councilRunId('t1', 'conf:multi-party:council-q2')).not.toBe(a);
  });

  it('holds the roster in one core.conversationGate of a valid definition, one workflow id per roster', () => {
    const { id, definition } = councilWorkflow(rosterOf(ROSTER));
    const full = withDefinitionDefaults(definition) as WorkflowDefinition;
    expect(validateWorkflowDefinition(full)).toEqual([]);
    expect(full.nodes).toEqual([
      expect.objectContaining({
        typeId: 'core.conversationGate',
        config: expect.objectContaining({ participants: ROSTER }),
      }),
    ]);
    expect(councilWorkflow(rosterOf(ROSTER)).id).toBe(id);
    expect(councilWorkflow(rosterOf([...ROSTER].reverse())).id).not.toBe(id);
  });

  it("leaves the roster's cap to the host's own refusal (validation_error, details.reason conversation_roster_exceeded)", () => {
    const nine = Array.from({ length: 9 }, (_v, i) => ({ agentId: `host:advisor-${i}` }));
    const { definition } = councilWorkflow(rosterOf(nine));
    expect(
      conversationRefusal(withDefinitionDefaults(definition) as WorkflowDefinition, { maxParticipants: 8 }),
    ).toMatchObject({
      code: 'validation_error',
      details: { reason: 'conversation_roster_exceeded', participants: 9, maxParticipants: 8 },
    });
  });

  it('keeps agentId and name of each member, and points refusals back at the request', () => {
    expect(rosterOf([{ agentId: 'a', name: 'A', system_prompt: 'x' }, 'b'])).toEqual([
      { agentId: 'a', name: 'A' },
      'b',
    ]);
    expect(requestPathOf('/nodes/0/config/participants/2/agentId')).toBe('/participants/2/agentId');
    expect(requestPathOf('/id')).toBe('/id');
  });
});
