import { InitialSchema1700000000000 } from './1700000000000-initial-schema';
import { Interrupts1700000000100 } from './1700000000100-interrupts';
import { Workflows1700000000200 } from './1700000000200-workflows';
import { PendingInterrupts1700000000300 } from './1700000000300-pending-interrupts';
import { ResolutionTokens1700000000400 } from './1700000000400-resolution-tokens';
import { Conversations1700000000500 } from './1700000000500-conversations';
import { OutboxTraceContext1700000000600 } from './1700000000600-outbox-trace-context';
import { InterruptConversations1700000000700 } from './1700000000700-interrupt-conversations';
import { ConversationSilence1700000000800 } from './1700000000800-conversation-silence';
import { OutboxKeyIndex1700000000900 } from './1700000000900-outbox-key-index';
import { ProjectionTotal1700000001000 } from './1700000001000-projection-total';
import { RunTimers1700000001200 } from './1700000001200-run-timers';
import { IdempotencyRecords1700000001100 } from './1700000001100-idempotency-records';
import { Webhooks1700000001300 } from './1700000001300-webhooks';
import { EngineRunEvents1700000001400 } from './1700000001400-engine-run-events';
import { AuditRecords1700000001500 } from './1700000001500-audit-records';
import { InterruptInbox1700000001610 } from './1700000001610-interrupt-inbox';
import { InterruptEscalations1700000001700 } from './1700000001700-interrupt-escalations';
import { WebhookDeliveryRetention1700000001800 } from './1700000001800-webhook-delivery-retention';
import { EngineAgentTurns1700000001900 } from './1700000001900-engine-agent-turns';
import { InterruptClaimExpiry1700000002010 } from './1700000002010-interrupt-claim-expiry';
import { IdempotencyShownOnce1700000002120 } from './1700000002120-idempotency-shown-once';
import { WebhookSignatureAlgorithms1700000002210 } from './1700000002210-webhook-signature-algorithms';
import { RunCallbacks1700000002220 } from './1700000002220-run-callbacks';
import { OauthCredentials1700000002330 } from './1700000002330-oauth-credentials';
import { WebhookSecretRotation1700000002340 } from './1700000002340-webhook-secret-rotation';

/** Every migration, oldest first. Schema changes are migrations, never `synchronize`. */
export const MIGRATIONS = [
  InitialSchema1700000000000,
  Interrupts1700000000100,
  Workflows1700000000200,
  PendingInterrupts1700000000300,
  ResolutionTokens1700000000400,
  Conversations1700000000500,
  OutboxTraceContext1700000000600,
  InterruptConversations1700000000700,
  ConversationSilence1700000000800,
  OutboxKeyIndex1700000000900,
  ProjectionTotal1700000001000,
  IdempotencyRecords1700000001100,
  RunTimers1700000001200,
  Webhooks1700000001300,
  EngineRunEvents1700000001400,
  AuditRecords1700000001500,
  InterruptInbox1700000001610,
  InterruptEscalations1700000001700,
  WebhookDeliveryRetention1700000001800,
  EngineAgentTurns1700000001900,
  InterruptClaimExpiry1700000002010,
  IdempotencyShownOnce1700000002120,
  WebhookSignatureAlgorithms1700000002210,
  RunCallbacks1700000002220,
  OauthCredentials1700000002330,
  WebhookSecretRotation1700000002340,
];
