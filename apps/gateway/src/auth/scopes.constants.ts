/** The spec's minimum scope vocabulary (auth.md §Scopes); a key may hold any subset. */
export const SCOPES = [
  'manifest:read',
  'runs:create',
  'runs:read',
  'runs:cancel',
  'artifacts:read',
  'webhooks:manage',
  'approvals:respond',
  'packs:publish',
  'packs:yank',
  'packs:yank-revert',
  'audit:read',
  'workspace:read',
  'workspace:write',
] as const;

/** Host-defined scopes (auth.md allows extensions that do not shadow the spec's names). */
export const HOST_SCOPES = [
  /** Register workflow definitions (`POST /v1/workflows`). */
  'manifest:write',
] as const;

/** A scope of the spec's vocabulary or one of this host's extensions. */
export type Scope = (typeof SCOPES)[number] | (typeof HOST_SCOPES)[number];
