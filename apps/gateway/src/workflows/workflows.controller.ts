import { Body, Controller, Get, HttpCode, Inject, Param, Post, Res } from '@nestjs/common';
import {
  Topics,
  workflowLimitProblems,
  type GetWorkflowCommand,
  type RegisterWorkflowCommand,
} from '@openwop/contracts';
import type { Response } from 'express';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiError } from '../common/api.error';
import { CommandSender } from '../commands/command.sender';
import { parseYamlBody } from '../common/yaml-body';
import { unsupportedScopes } from '../oauth-connect/oauth-client';
import { OAUTH_PROVIDERS, type OAuthProviders } from '../oauth-connect/oauth-providers.provider';

/**
 * `POST /v1/workflows` registers an OpenWOP workflow definition (JSON, or YAML with
 * `Content-Type: application/yaml`) for the caller's tenant. The host's size bounds (nodes, edges,
 * ids, timeouts: `workflowLimitProblems`) are checked here, before anything is sent; the engine
 * validates the rest: unknown node types or malformed graphs are refused with `validation_error`);
 * `GET /v1/workflows/{workflowId}` returns it (tenant workflows first, then the seeded fixtures).
 */
@Controller()
export class WorkflowsController {
  constructor(
    private readonly commands: CommandSender,
    @Inject(OAUTH_PROVIDERS) private readonly providers: OAuthProviders,
  ) {}

  @Post('/v1/workflows')
  @HttpCode(201)
  @RequireScope('manifest:write')
  async register(
    @Body() body: unknown,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ workflowId: string }> {
    const parsed = typeof body === 'string' ? parseYamlBody(body) : body;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw ApiError.validation('The body must be a workflow definition object.', [
        { path: '', message: 'must be an object' },
      ]);
    }
    const definition = parsed as Record<string, unknown>;
    const bounds = workflowLimitProblems(definition);
    if (bounds.length > 0) throw ApiError.validation('The workflow is outside the host limits.', bounds);
    this.assertOAuthProviders(definition);
    const key = typeof definition.id === 'string' ? definition.id : 'workflow';
    const command: RegisterWorkflowCommand = this.commands.envelope(
      'workflow.register',
      key,
      { definition },
      caller,
    );
    const result = await this.commands.send<{ workflowId: string }>(Topics.engineCommands, key, command);
    res.setHeader('Location', `/v1/workflows/${encodeURIComponent(result.workflowId)}`);
    return result;
  }

  /**
   * v2 oauth.md §Token lifecycle: a `core.credential` node whose provider this host is not a client
   * of is refused `oauth_provider_unsupported`, one asking for a scope the provider does not list
   * `oauth_scope_unsupported`; nothing is registered.
   */
  private assertOAuthProviders(definition: Record<string, unknown>): void {
    const nodes = Array.isArray(definition.nodes) ? (definition.nodes as unknown[]) : [];
    nodes.forEach((n, i) => {
      const node = n as { typeId?: unknown; config?: { provider?: unknown; scopes?: unknown } } | null;
      if (node?.typeId !== 'core.credential' || typeof node.config?.provider !== 'string') return;
      const provider = this.providers.get(node.config.provider);
      if (!provider) {
        throw new ApiError(
          'oauth_provider_unsupported',
          `This host is not a client of ${node.config.provider}.`,
          {
            field: `/nodes/${i}/config/provider`,
            providers: [...this.providers.keys()],
          },
        );
      }
      const scopes = Array.isArray(node.config.scopes) ? (node.config.scopes as string[]) : [];
      const unsupported = unsupportedScopes(provider, scopes);
      if (unsupported.length > 0) {
        throw new ApiError(
          'oauth_scope_unsupported',
          `${provider.id} does not offer ${unsupported.join(', ')}.`,
          {
            field: `/nodes/${i}/config/scopes`,
            scopesSupported: [...provider.scopesSupported],
          },
        );
      }
    });
  }

  @Get('/v1/workflows/:workflowId')
  @RequireScope('manifest:read')
  async get(@Param('workflowId') workflowId: string, @CurrentCaller() caller: Caller): Promise<unknown> {
    const command: GetWorkflowCommand = this.commands.envelope(
      'workflow.get',
      workflowId,
      { workflowId },
      caller,
    );
    return this.commands.send<unknown>(Topics.engineCommands, workflowId, command);
  }
}
