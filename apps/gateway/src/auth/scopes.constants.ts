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

/** A scope of the spec's vocabulary. Keys may also carry host-defined scopes (plain strings). */
export type Scope = (typeof SCOPES)[number];
