export { toBase64Url, fromBase64Url } from './base64url.util';
export { TOKEN_ALGORITHM, signingKey, verificationSecret, type KeyRing, type TokenKey } from './key-ring';
export {
  TOKEN_INTENTS,
  isCanonicalInstant,
  parseClaims,
  parsePayload,
  serializeClaims,
  serializePayload,
  type Ow2TokenPayload,
  type TokenClaims,
  type TokenIntent,
  type TokenPayload,
  type VerifiedTokenPayload,
} from './token-payload';
export {
  MAX_TOKEN_LENGTH,
  peekTokenPayload,
  schemeKidOf,
  signToken,
  tokenFingerprint,
  tokenSchemeOf,
  verifyToken,
  type TokenRefusal,
  type TokenScheme,
  type TokenVerification,
} from './resolution-token';
export { DEFAULT_TOKEN_TTL_MS, tokenExpiry } from './token-expiry';
export { ExpiredToken, InspectOnlyToken, InvalidatedToken, InvalidToken, UnknownToken } from './token.errors';
export { authorizeTokenUse, type StoredTokenState, type TokenOperation } from './token-use.rules';
export {
  tokenChangesFor,
  tokenSchemeOfRun,
  tokenStateOf,
  type InterruptTokenState,
  type MintSettings,
  type MintedTokens,
  type TokenChange,
} from './token-lifecycle';
