/**
 * Workflow definitions the load tools (`npm run faults`, `npm run fuzz`) register on the host they
 * drive, besides the conformance fixtures it seeds.
 */

/** Waits on external event `payment.settled` at node `gate`, correlated by `{orderId: 'o-1'}`, then a no-op. */
export function externalEventWorkflow(id: string, name: string) {
  return {
    id,
    name,
    version: '1.0.0',
    nodes: [
      {
        id: 'gate',
        typeId: 'core.externalEvent',
        config: { eventType: 'payment.settled', correlation: { orderId: 'o-1' } },
      },
      { id: 'after', typeId: 'core.noop', config: {} },
    ],
    edges: [{ id: 'e0', sourceNodeId: 'gate', targetNodeId: 'after' }],
    triggers: [],
    variables: [],
    metadata: {},
    settings: {},
  };
}
