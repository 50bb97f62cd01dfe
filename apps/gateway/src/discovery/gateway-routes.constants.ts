/** One route the gateway serves, as discovery lists it. */
export interface GatewayRoute {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  /** Required scope (space-separated when several are, OAuth-style); absent for routes served without credentials. */
  readonly scope?: string;
}

/** Every route the gateway serves; the discovery document's `endpoints`. */
export const GATEWAY_ROUTES: readonly GatewayRoute[] = [
  { method: 'GET', path: '/.well-known/openwop' },
  { method: 'GET', path: '/v1/openapi.json' },
  { method: 'GET', path: '/healthz' },
  { method: 'GET', path: '/readyz' },
  { method: 'POST', path: '/v1/runs', scope: 'runs:create' },
  { method: 'GET', path: '/v1/runs', scope: 'runs:read' },
  { method: 'GET', path: '/v1/runs/{runId}', scope: 'runs:read' },
  { method: 'GET', path: '/v1/runs/{runId}/events', scope: 'runs:read' },
  { method: 'GET', path: '/v1/runs/{runId}/events/poll', scope: 'runs:read' },
  { method: 'GET', path: '/v1/runs/{runId}/conversations', scope: 'runs:read' },
  { method: 'GET', path: '/v1/runs/{runId}/conversations/{conversationId}', scope: 'runs:read' },
  { method: 'POST', path: '/v1/runs/{runId}/interrupts/{nodeId}', scope: 'approvals:respond' },
  { method: 'POST', path: '/v1/runs/{runId}/approvals/{nodeId}', scope: 'approvals:respond' },
  { method: 'POST', path: '/v1/runs/{runId}/cancel', scope: 'runs:cancel' },
  { method: 'POST', path: '/v1/runs:bulk-cancel', scope: 'runs:cancel' },
  { method: 'POST', path: '/v1/runs/{runId}:fork', scope: 'runs:create runs:read' },
  { method: 'POST', path: '/v1/runs/{runId}:pause', scope: 'runs:cancel' },
  { method: 'POST', path: '/v1/runs/{runId}:resume', scope: 'runs:cancel' },
  { method: 'POST', path: '/v1/runs/{runId}:resolveInterrupt', scope: 'approvals:respond' },
  { method: 'GET', path: '/v1/interrupts', scope: 'runs:read' },
  { method: 'GET', path: '/v1/interrupts/{token}' },
  { method: 'POST', path: '/v1/interrupts/{token}' },
  { method: 'POST', path: '/v1/workflows', scope: 'manifest:write' },
  { method: 'GET', path: '/v1/workflows/{workflowId}', scope: 'manifest:read' },
];
