import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsInt, ValidateNested } from 'class-validator';
import { MAX_NODE_EXECUTIONS } from '@openwop/contracts';
import type { DomainError } from '@openwop/kernel';
import { CancelRunRequestDto } from '../cancel-run/cancel-run.request.dto';
import { CreateRunRequestDto } from '../create-run/create-run.request.dto';
import { ForkRunRequestDto } from '../fork-run/fork-run.request.dto';
import { createValidationPipe } from './validation.pipe';

class Inner {
  @IsInt() n!: number;
}
class Outer {
  @ValidateNested() @Type(() => Inner) inner!: Inner;
}

const body = (metatype: new () => unknown) => ({ type: 'body' as const, metatype });

async function refusal(
  value: unknown,
  metatype: new () => unknown = CreateRunRequestDto,
): Promise<DomainError> {
  try {
    await createValidationPipe().transform(value, body(metatype));
  } catch (e) {
    return e as DomainError;
  }
  throw new Error(`accepted ${JSON.stringify(value)}`);
}

describe('body validation pipe', () => {
  it('keeps free-form members exactly as parsed: keys named constructor, __proto__, toString are data', async () => {
    const parsed = JSON.parse(
      '{"workflowId":"w","inputs":{"constructor":{"a":1},"__proto__":{"b":2},"toString":3},"metadata":{"hasOwnProperty":"x"}}',
    ) as Record<string, unknown>;
    const dto = (await createValidationPipe().transform(
      parsed,
      body(CreateRunRequestDto),
    )) as CreateRunRequestDto;
    expect(dto).toBeInstanceOf(CreateRunRequestDto);
    expect(Object.keys(dto.inputs!)).toEqual(['constructor', '__proto__', 'toString']);
    expect(JSON.stringify(dto.inputs)).toBe('{"constructor":{"a":1},"__proto__":{"b":2},"toString":3}');
    expect(Object.getPrototypeOf(dto.inputs)).toBe(Object.prototype);
    expect(dto.metadata).toEqual({ hasOwnProperty: 'x' });
    expect(({} as Record<string, unknown>).b).toBeUndefined();
  });

  it('refuses an undeclared top-level key by name, whatever it is called', async () => {
    for (const key of ['constructor', '__proto__', 'prototype', 'toString', 'extra']) {
      const parsed = JSON.parse(`{"workflowId":"w",${JSON.stringify(key)}:{"workflowId":5}}`) as unknown;
      const error = await refusal(parsed);
      expect(error.code).toBe('validation_error');
      expect(error.details).toEqual({
        errors: [{ path: `/${key}`, message: `property ${key} should not exist` }],
      });
    }
  });

  it('refuses bodies that are not JSON objects', async () => {
    for (const value of [[], [{ workflowId: 'w' }], 'w', 5, null]) {
      expect((await refusal(value)).details).toEqual({
        errors: [{ path: '', message: 'must be an object' }],
      });
      expect((await refusal(value, CancelRunRequestDto)).code).toBe('validation_error');
    }
  });

  it('treats a missing body as {}: optional-only DTOs pass, required fields are reported', async () => {
    await expect(createValidationPipe().transform(undefined, body(CancelRunRequestDto))).resolves.toEqual({});
    expect((await refusal(undefined)).details).toMatchObject({
      errors: expect.arrayContaining([expect.objectContaining({ path: '/workflowId' })]),
    });
  });

  it('refuses run options past the host limits, on create and on fork', async () => {
    const create = await refusal({ workflowId: 'w', configurable: { recursionLimit: 8000 } });
    expect(create.details).toEqual({
      errors: [
        {
          path: '/configurable',
          message: `recursionLimit must be an integer from 1 to ${MAX_NODE_EXECUTIONS}`,
        },
      ],
    });
    const fork = await refusal(
      { mode: 'branch', fromSeq: 1, runOptionsOverlay: { configurable: { run: { recursionLimit: 1e9 } } } },
      ForkRunRequestDto,
    );
    expect(fork.details).toEqual({
      errors: [
        {
          path: '/runOptionsOverlay',
          message: `configurable.run.recursionLimit must be an integer from 1 to ${MAX_NODE_EXECUTIONS}`,
        },
      ],
    });
    expect((await refusal({ mode: 'replay', fromSeq: 2 ** 31 }, ForkRunRequestDto)).code).toBe(
      'validation_error',
    );
    await expect(
      createValidationPipe().transform(
        { workflowId: 'w', configurable: { recursionLimit: MAX_NODE_EXECUTIONS } },
        body(CreateRunRequestDto),
      ),
    ).resolves.toMatchObject({ configurable: { recursionLimit: MAX_NODE_EXECUTIONS } });
  });

  it('refuses a cancel reason that is not a short string', async () => {
    expect((await refusal({ reason: ['x'] }, CancelRunRequestDto)).code).toBe('validation_error');
    expect((await refusal({ reason: 'x'.repeat(1001) }, CancelRunRequestDto)).code).toBe('validation_error');
  });

  it('leaves nested DTOs as the mapper built them', async () => {
    const dto = (await createValidationPipe().transform({ inner: { n: 1 } }, body(Outer))) as Outer;
    expect(dto.inner).toBeInstanceOf(Inner);
    expect((await refusal({ inner: { n: 'x' } }, Outer)).code).toBe('validation_error');
  });
});
