import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { RequestMajor } from '../common/protocol-negotiation.middleware';
import type { ProtocolMajor } from '../common/protocol-version';
import { createValidationPipe } from '../common/validation.pipe';
import { CreateRunHandler } from './create-run.handler';
import { CreateRunRequestDto } from './create-run.request.dto';
import type { CreateRunResponseDto } from './create-run.response.dto';

/** `POST /v1/runs`: validates the body and hands it to {@link CreateRunHandler}. */
@Controller()
export class CreateRunController {
  constructor(private readonly handler: CreateRunHandler) {}

  @Post('/v1/runs')
  @HttpCode(201)
  @RequireScope('runs:create')
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
