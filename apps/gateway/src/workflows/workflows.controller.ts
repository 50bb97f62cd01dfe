import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Topics, type GetWorkflowCommand, type RegisterWorkflowCommand } from '@openwop/contracts';
import type { Response } from 'express';
import { parseDocument } from 'yaml';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiError } from '../common/api.error';
import { CommandSender } from '../commands/command.sender';

/** A YAML body (`Content-Type: application/yaml`, the gateway's text parser) as JSON data; a syntax error is `validation_error` with its line and column. */
function parseYamlBody(text: string): unknown {
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0) {
    throw ApiError.validation(
      'The body is not valid YAML.',
      doc.errors.map((e) => ({ path: '', message: e.message })),
    );
  }
  return doc.toJS({ maxAliasCount: 100 });
}

/**
 * `POST /v1/workflows` registers an OpenWOP workflow definition (JSON, or YAML with
 * `Content-Type: application/yaml`) for the caller's tenant (the engine
 * validates it: unknown node types or malformed graphs are refused with `validation_error`);
 * `GET /v1/workflows/{workflowId}` returns it (tenant workflows first, then the seeded fixtures).
 */
@ApiTags('workflows')
@Controller()
export class WorkflowsController {
  constructor(private readonly commands: CommandSender) {}

  @Post('/v1/workflows')
  @HttpCode(201)
  @RequireScope('manifest:write')
  @ApiCreatedResponse({ description: '`{workflowId}`; `Location` names the workflow.' })
  async register(
    @Body() body: unknown,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ workflowId: string }> {
    const parsed = typeof body === 'string' ? parseYamlBody(body) : body;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw ApiError.validation('The body must be a workflow definition object.', [{ path: '', message: 'must be an object' }]);
    }
    const definition = parsed as Record<string, unknown>;
    const key = typeof definition.id === 'string' ? definition.id : 'workflow';
    const command: RegisterWorkflowCommand = this.commands.envelope('workflow.register', key, { definition }, caller);
    const result = await this.commands.send<{ workflowId: string }>(Topics.engineCommands, key, command);
    res.setHeader('Location', `/v1/workflows/${encodeURIComponent(result.workflowId)}`);
    return result;
  }

  @Get('/v1/workflows/:workflowId')
  @RequireScope('manifest:read')
  @ApiOkResponse({ description: 'The workflow definition.' })
  async get(@Param('workflowId') workflowId: string, @CurrentCaller() caller: Caller): Promise<unknown> {
    const command: GetWorkflowCommand = this.commands.envelope('workflow.get', workflowId, { workflowId }, caller);
    return this.commands.send<unknown>(Topics.engineCommands, workflowId, command);
  }
}
