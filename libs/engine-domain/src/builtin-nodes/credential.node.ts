import {
  CONNECTOR_AUTH_DECLINED,
  CREDENTIAL_RESUME_SCHEMA,
  type CredentialData,
  type CredentialOutcome,
} from '@openwop/contracts';
import { defineNode, NodeError } from '../node';

let connectBase: string | undefined;

/**
 * Installs the host's public https origin, under which a `credential` interrupt's `connectUrl` lives
 * (`{base}/oauth/connect/{runId}/{nodeId}`, served by the gateway). Set by the engine at start from
 * its `PUBLIC_URL`; unset, or not https, `core.credential` fails `capability_not_provided`.
 */
export function setCredentialConnectBase(base: string | undefined): void {
  connectBase = base?.replace(/\/+$/, '');
}

/** The `connectUrl` of the credential interrupt of `nodeId` in `runId`, under the installed base. */
export function connectUrlOf(base: string, runId: string, nodeId: string): string {
  return `${base}/oauth/connect/${encodeURIComponent(runId)}/${encodeURIComponent(nodeId)}`;
}

/**
 * `core.credential` (RFC 0199 §C, v2 `oauth.md` §The credential interrupt): suspends on a
 * `credential` interrupt for `config.provider` and `config.scopes` until the run's principal
 * authorizes the provider through `connectUrl`, or declines. Outputs `{provider, scopes, outcome}`;
 * `declined` fails the node `connector_auth_declined`. The engine does not read the credential store
 * (the gateway owns it, ADR 0044), so the node suspends whenever it runs; the gateway resolves it
 * at once when a credential already resolves for the principal.
 */
export const credentialNode = defineNode({
  typeId: 'core.credential',
  async execute(ctx) {
    const base = connectBase;
    if (base === undefined || !base.startsWith('https://')) {
      throw new NodeError(
        'capability_not_provided',
        'this host has no https public URL (PUBLIC_URL) to serve a credential interrupt connectUrl from',
        { capability: 'oauth.credentialInterrupt', nodeId: ctx.nodeId },
      );
    }
    const scopes = Array.isArray(ctx.config.scopes) ? (ctx.config.scopes as string[]) : [];
    const data: CredentialData = {
      provider: ctx.config.provider as string,
      scopes,
      reason: 'missing',
      connectUrl: connectUrlOf(base, ctx.runId, ctx.nodeId),
      ...(ctx.config.credentialRef !== undefined
        ? { credentialRef: ctx.config.credentialRef as { ref: string; scope?: string } }
        : {}),
    };
    const resume = await ctx.interrupt<{ outcome: CredentialOutcome }>({
      kind: 'credential',
      resumeSchema: CREDENTIAL_RESUME_SCHEMA,
      ...(typeof ctx.config.timeoutMs === 'number' ? { timeoutMs: ctx.config.timeoutMs } : {}),
      data,
    });
    if (resume.outcome === 'declined') {
      throw new NodeError(CONNECTOR_AUTH_DECLINED, `the user declined to authorize ${data.provider}`, {
        provider: data.provider,
      });
    }
    return { provider: data.provider, scopes, outcome: resume.outcome };
  },
});
