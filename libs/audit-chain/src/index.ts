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
export { verifyAuditExport, type AuditFinding, type VerifyOptions, type VerifyResult } from './verify-chain';
