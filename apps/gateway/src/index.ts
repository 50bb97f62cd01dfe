export { GatewayModule } from './gateway.module';
export { configureGatewayApp, type GatewayAppOptions } from './configure-gateway-app';
export { API_KEY_REGISTRY } from './gateway.di-tokens';
export { ApiKeyRegistry, type Caller } from './auth/api-key.registry';
export {
  API_KEYS_ENV,
  ApiKeyConfigError,
  parseApiKeysConfig,
  type ApiKeyConfigEntry,
} from './auth/api-key.config';
export { createApiKeyRegistry, type RegistryLog } from './auth/api-key-registry.factory';
export {
  createDevApiKey,
  devApiKeyFile,
  writeDevApiKey,
  DEV_API_KEY_FILE_ENV,
} from './auth/dev-api-key.util';
export { SCOPES, type Scope } from './auth/scopes.constants';
export { ERROR_STATUS, statusForErrorCode, type ErrorCode } from './common/error-status.table';
export type { ErrorEnvelope } from './common/error-envelope.type';
