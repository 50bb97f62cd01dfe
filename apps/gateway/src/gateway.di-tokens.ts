/** DI token of the {@link ApiKeyRegistry} that authenticates every request. */
export const API_KEY_REGISTRY = Symbol('API_KEY_REGISTRY');
