export { canonicalJson } from './canonical-json';
export {
  AUDIT_ACTIONS,
  AUDIT_ROUTES,
  GENESIS_HASH,
  type AuditAction,
  type AuditFact,
  type AuditLine,
  type AuditRoute,
} from './audit-record';
export { appendTo, digestOf, EMPTY_HEAD, lineText, recordHash, type ChainHead } from './audit-chain';
export {
  verifyAuditExport,
  type AuditFinding,
  type VerifiedHead,
  type VerifyOptions,
  type VerifyResult,
} from './verify-chain';
export {
  AUDIT_HEAD_TYPE,
  auditKeyId,
  auditPublicKeyFrom,
  auditSigningKeyFrom,
  checkAuditHeadSignature,
  generateAuditSigningKey,
  parseSignedAuditHead,
  rawPublicKey,
  signAuditHead,
  type AuditHead,
  type AuditSigningKey,
  type SignedAuditHead,
} from './signed-head';
export {
  AUDIT_SIGNING_KEY_ENV,
  embeddedAuditKeyFile,
  loadAuditSigningKey,
  type LoadedAuditSigningKey,
} from './signing-key';
