import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { RequestMajor } from '../common/protocol-negotiation.middleware';
import type { ProtocolMajor } from '../common/protocol-version';
import { createValidationPipe } from '../common/validation.pipe';
import { CreateRunHandler } from './create-run.handler';
import { CreateRunRequestDto } from './create-run.request.dto';
import { CreateRunResponseDto } from './create-run.response.dto';

/** `POST /v1/runs`: validates the body and hands it to {@link CreateRunHandler}. */
@ApiTags('runs')
@Controller()
export class CreateRunController {
  constructor(private readonly handler: CreateRunHandler) {}

  @Post('/v1/runs')
  @HttpCode(201)
  @RequireScope('runs:create')
  @ApiCreatedResponse({ type: CreateRunResponseDto, description: 'Run accepted; `Location` names the run.' })
  @ApiBadRequestResponse({ description: 'Malformed body or unknown workflowId (`validation_error`).' })
  @ApiServiceUnavailableResponse({
    description: 'The engine did not answer in time; the run may still start (`unavailable`, `Retry-After`).',
  })
  async create(
    @Body(createValidationPipe()) body: CreateRunRequestDto,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) res: Response,
    @RequestMajor() major: ProtocolMajor,
  ): Promise<CreateRunResponseDto> {
    const created = await this.handler.handle(body, caller, undefined, major);
    res.setHeader('Location', created.statusUrl);
    return created;
  }
}
