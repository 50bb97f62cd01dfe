export { toBase64Url, fromBase64Url } from './base64url.util';
export { TOKEN_ALGORITHM, signingKey, verificationSecret, type KeyRing, type TokenKey } from './key-ring';
export {
  TOKEN_INTENTS,
  isCanonicalInstant,
  parsePayload,
  serializePayload,
  type TokenClaims,
  type TokenIntent,
  type TokenPayload,
} from './token-payload';
export {
  MAX_TOKEN_LENGTH,
  peekTokenPayload,
  signToken,
  tokenFingerprint,
  verifyToken,
  type TokenRefusal,
  type TokenVerification,
} from './resolution-token';
export { DEFAULT_TOKEN_TTL_MS, tokenExpiry } from './token-expiry';
export { ExpiredToken, InspectOnlyToken, InvalidatedToken, UnknownToken } from './token.errors';
export { authorizeTokenUse, type StoredTokenState, type TokenOperation } from './token-use.rules';
export {
  tokenChangesFor,
  tokenStateOf,
  type InterruptTokenState,
  type MintSettings,
  type MintedTokens,
  type TokenChange,
} from './token-lifecycle';
