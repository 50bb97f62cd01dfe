/**
 * RFC 0011 (auth-scoped discovery), `same-endpoint` mode: `GET /.well-known/openwop` with a valid
 * key answers the v1 document narrowed to what that key may do. The rule is one: a route is listed
 * only when the key holds its scope (or it needs none), and an optional capability block is shown
 * only when the key may call at least one route it describes. The fields capabilities.md §3
 * requires, and what describes the protocol rather than an operation (`auth`, `limits`,
 * `discovery`, `implementation`, the version fields), stay. So a key learns nothing about an
 * operation outside its authorization, and a key with fewer scopes never sees a capability a key
 * with more lacks (RFC 0011 §B assertion 5).
 */

/** The advertisement of RFC 0011 §A, on both the public and the scoped views. */
export const AUTH_SCOPED_DISCOVERY = { authScoped: { supported: true, mode: 'same-endpoint' } } as const;

interface AdvertisedRoute {
  readonly method: string;
  readonly path: string;
  readonly scope?: string;
}

/** Which routes an optional block describes: the block is kept when the key may call one of them. */
type RouteTest = (r: AdvertisedRoute) => boolean;

const runRoutes: RouteTest = (r) => r.path.startsWith('/v1/runs');
const interruptRoutes: RouteTest = (r) =>
  r.path.startsWith('/v1/interrupts') ||
  /\/(interrupts|approvals)\/\{nodeId\}|:resolveInterrupt/.test(r.path);
const webhookRoutes: RouteTest = (r) => r.path.startsWith('/v1/webhook');

/** Root blocks and the routes they describe. */
const ROOT_BLOCKS: Readonly<Record<string, RouteTest>> = {
  fixtures: (r) => r.path === '/v1/runs' && r.method === 'POST',
  agents: runRoutes,
  conversationPrimitive: (r) => r.path.includes('/conversations'),
  multiPartyConversation: (r) => r.path.includes('/conversations'),
  capabilities: (r) => r.path.includes('/conversations'),
  replay: (r) => r.path.endsWith(':fork'),
  runs: (r) => r.path.endsWith(':pause') || r.path.endsWith(':resume'),
  idempotency: (r) => r.method === 'POST' && r.path.startsWith('/v1/'),
  webhooks: webhookRoutes,
  streamModes: (r) => r.path.endsWith('/events'),
};

/** `extensions` blocks and the routes they describe. */
const EXTENSION_BLOCKS: Readonly<Record<string, RouteTest>> = {
  interrupts: (r) => runRoutes(r) || interruptRoutes(r),
  resolutionTokens: interruptRoutes,
  durableTimers: runRoutes,
  bulkCancel: (r) => r.path === '/v1/runs:bulk-cancel',
  bulkDecisions: (r) => r.path.startsWith('/v1/interrupts:bulk-'),
  webhooks: webhookRoutes,
  // The public key is public; the chain itself is `audit:read`'s.
  audit: (r) => r.path.startsWith('/v1/audit') && r.scope !== undefined,
};

/** Host limits that belong to one family. */
const EXTENSION_LIMITS: Readonly<Record<string, RouteTest>> = {
  maxWebhookSubscriptionsPerTenant: webhookRoutes,
};

/**
 * The view of `doc` (the public v1 document) for a key holding `scopes`. Blocks not named above
 * are kept as they are; `endpoints` lists only what the key may call.
 */
export function scopedDiscoveryDocument(
  doc: Readonly<Record<string, unknown>>,
  scopes: ReadonlySet<string>,
): Record<string, unknown> {
  const routes = (doc.endpoints as AdvertisedRoute[] | undefined) ?? [];
  // A route's `scope` lists every scope it needs, space-separated.
  const callable = routes.filter((r) => (r.scope ?? '').split(' ').every((s) => s === '' || scopes.has(s)));
  const may = (test: RouteTest) => callable.some(test);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'endpoints') out[key] = callable;
    else if (key === 'extensions') out[key] = scopedExtensions(value as Record<string, unknown>, may);
    else if (ROOT_BLOCKS[key] === undefined || may(ROOT_BLOCKS[key])) out[key] = value;
  }
  return out;
}

function scopedExtensions(
  extensions: Record<string, unknown>,
  may: (test: RouteTest) => boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(extensions)) {
    if (key === 'limits') {
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).filter(
          ([limit]) => EXTENSION_LIMITS[limit] === undefined || may(EXTENSION_LIMITS[limit]),
        ),
      );
    } else if (EXTENSION_BLOCKS[key] === undefined || may(EXTENSION_BLOCKS[key])) out[key] = value;
  }
  return out;
}
