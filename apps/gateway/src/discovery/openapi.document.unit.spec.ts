import 'reflect-metadata';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import {
  MAX_CURSOR_LENGTH,
  MAX_ID_LENGTH,
  MAX_INTERRUPT_AGE_MS,
  MAX_PAUSE_REASON_LENGTH,
  RUN_EVENT_TYPES,
} from '@openwop/contracts';
import { MAX_AUDIT_LIMIT } from '../audit/audit-query.dto';
import { MAX_TURN_PAGE } from '../get-conversation/get-conversation.query.dto';
import { LISTED_RUN_STATUSES } from '../list-runs/list-runs.query.dto';
import { MAX_BUFFER_MS } from '../run-events/run-events.query.dto';
import Ajv2020 from 'ajv/dist/2020';
import { IsEmail, IsOptional, IsString, ValidateIf } from 'class-validator';
import {
  BulkCancelRunsRequestDto,
  MAX_BULK_CANCEL_RUN_IDS,
  MAX_RUN_ID_LENGTH,
} from '../bulk-cancel-runs/bulk-cancel-runs.request.dto';
import { MAX_CANCEL_REASON_LENGTH } from '../cancel-run/cancel-run.request.dto';
import { createValidationPipe } from '../common/validation.pipe';
import { CreateRunRequestDto, MAX_CALLBACK_URL_LENGTH, MAX_TAGS } from '../create-run/create-run.request.dto';
import { GatewayModule } from '../gateway.module';
import { ForkRunRequestDto } from '../fork-run/fork-run.request.dto';
import { PauseRunRequestDto } from '../pause-run/pause-run.request.dto';
import {
  MAX_WEBHOOK_TAGS,
  MAX_WEBHOOK_URL_LENGTH,
  RegisterWebhookRequestDto,
} from '../webhooks/register-webhook.request.dto';
import { classSchema, componentNameOf, type DtoClass } from './class-schema';
import { GATEWAY_ROUTES } from './gateway-routes.constants';
import { buildOpenApiDocument, openApiPathOf } from './openapi.document';

interface Schema {
  $ref?: string;
  type?: string;
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  enum?: unknown[];
  [keyword: string]: unknown;
}
interface Operation {
  requestBody?: { content: Record<string, { schema: Schema }> };
}
const doc = buildOpenApiDocument() as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};
const component = (name: string): Schema => doc.components.schemas[name]!;

/**
 * `METHOD path` → the DTO class its `@Body()` (or whole `@Query()`) parameter is, from Nest's own
 * route metadata: what the validation pipe checks.
 */
function validatedClassesOfControllers(
  kind: RouteParamtypes.BODY | RouteParamtypes.QUERY,
): Map<string, DtoClass> {
  const controllers = Reflect.getMetadata('controllers', GatewayModule) as DtoClass[];
  const out = new Map<string, DtoClass>();
  for (const controller of controllers) {
    const proto = controller.prototype as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(proto)) {
      const handler = proto[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (path === undefined || method === undefined) continue;
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<
        string,
        { index: number; data?: unknown }
      >;
      const types = (Reflect.getMetadata('design:paramtypes', proto, name) ?? []) as unknown[];
      for (const [key, arg] of Object.entries(args)) {
        if (key.split(':')[0] !== String(kind) || arg.data !== undefined) continue;
        const type = types[arg.index];
        // `@Body() body: unknown` is checked by hand: its schema is written in the route table.
        if (typeof type === 'function' && type !== Object)
          out.set(`${RequestMethod[method]} ${openApiPathOf(path)}`, type as DtoClass);
      }
    }
  }
  return out;
}

/** Whether the gateway's validation pipe takes `body` for `dto`. */
async function pipeAccepts(dto: DtoClass, body: unknown): Promise<boolean> {
  try {
    await createValidationPipe().transform(body, { type: 'body', metatype: dto as never });
    return true;
  } catch {
    return false;
  }
}

describe('the OpenAPI request bodies and query parameters, generated from the validated DTO classes', () => {
  it('documents each route whose controller validates a DTO body with that DTO, and no other route with one', () => {
    const validated = validatedClassesOfControllers(RouteParamtypes.BODY);
    expect(validated.size).toBeGreaterThanOrEqual(7);
    const documented = new Map(
      GATEWAY_ROUTES.filter((r) => r.body?.dto).map((r) => [`${r.method} ${r.path}`, r.body!.dto!]),
    );
    expect([...documented].map(([k, c]) => [k, c.name]).sort()).toEqual(
      [...validated].map(([k, c]) => [k, c.name]).sort(),
    );
  });

  it('documents each route whose controller validates a query DTO with that DTO, and its parameters from it', () => {
    const validated = validatedClassesOfControllers(RouteParamtypes.QUERY);
    expect(validated.size).toBeGreaterThanOrEqual(10);
    const documented = new Map(
      GATEWAY_ROUTES.filter((r) => r.query).map((r) => [`${r.method} ${r.path}`, r.query!]),
    );
    expect([...documented].map(([k, c]) => [k, c.name]).sort()).toEqual(
      [...validated].map(([k, c]) => [k, c.name]).sort(),
    );
    for (const route of GATEWAY_ROUTES.filter((r) => r.query)) {
      const op = doc.paths[route.path]![route.method.toLowerCase()] as unknown as {
        parameters: { name: string; in: string; schema: Schema }[];
      };
      const inQuery = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
      expect({ route: route.operationId, inQuery: [...inQuery].sort() }).toEqual({
        route: route.operationId,
        inQuery: Object.keys(classSchema(route.query!).properties as object).sort(),
      });
    }
  });

  it('takes query limits from the validators, and leaves a parameter the handler checks to the route table', () => {
    const param = (path: string, name: string, method = 'get') =>
      (
        doc.paths[path]![method] as unknown as { parameters: { name: string; schema: Schema }[] }
      ).parameters.find((p) => p.name === name)!;
    expect(param('/v1/runs', 'limit').schema).toEqual({ type: 'integer', minimum: 1, maximum: 200 });
    expect(param('/v1/runs', 'status').schema.enum).toEqual([...LISTED_RUN_STATUSES]);
    expect(param('/v1/runs', 'cursor').schema).toEqual({ type: 'string', maxLength: MAX_CURSOR_LENGTH });
    expect(param('/v1/audit', 'limit').schema).toMatchObject({ maximum: MAX_AUDIT_LIMIT });
    expect(param('/v1/audit', 'from').schema).toEqual({ type: 'string', format: 'date-time' });
    expect(param('/v1/runs/{runId}/events', 'bufferMs').schema).toMatchObject({ maximum: MAX_BUFFER_MS });
    expect(param('/v1/runs/{runId}/events', 'streamMode').schema.pattern).toBeDefined();
    expect(param('/v1/runs/{runId}/conversations/{conversationId}', 'limit').schema).toMatchObject({
      maximum: MAX_TURN_PAGE,
    });
    expect(param('/v1/interrupts', 'olderThanMs').schema).toMatchObject({ maximum: MAX_INTERRUPT_AGE_MS });
    expect(() =>
      buildOpenApiDocument([
        {
          ...GATEWAY_ROUTES.find((r) => r.operationId === 'listRuns')!,
          parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }],
        },
      ]),
    ).toThrow('listRuns: query parameter limit is checked by ListRunsQueryDto');
  });

  it('gives each such route a $ref to its DTO schema, which is the generated one', () => {
    for (const route of GATEWAY_ROUTES.filter((r) => r.body?.dto)) {
      const dto = route.body!.dto!;
      const op = doc.paths[route.path]![route.method.toLowerCase()]!;
      const name = componentNameOf(dto);
      expect({
        route: route.operationId,
        schema: op.requestBody!.content['application/json']!.schema,
      }).toEqual({
        route: route.operationId,
        schema: { $ref: `#/components/schemas/${name}` },
      });
      expect(component(name)).toEqual(classSchema(dto));
    }
  });

  it('takes limits, enums and required properties from the constants the validators use', () => {
    const create = component('CreateRunRequest');
    expect(create.required).toEqual(['workflowId']);
    expect(create.additionalProperties).toBe(false);
    expect(create.properties!.workflowId).toMatchObject({
      type: 'string',
      minLength: 1,
      maxLength: MAX_ID_LENGTH,
    });
    expect(create.properties!.tenantId).toMatchObject({ maxLength: MAX_ID_LENGTH });
    expect(create.properties!.callbackUrl).toMatchObject({ maxLength: MAX_CALLBACK_URL_LENGTH });
    expect(create.properties!.tags).toEqual({
      type: 'array',
      maxItems: MAX_TAGS,
      items: { type: 'string', maxLength: MAX_ID_LENGTH },
    });
    expect(create.properties!.configurable!.description).toContain('recursionLimit');

    const webhook = component('RegisterWebhookRequest');
    expect(webhook.required).toEqual(['url', 'events']);
    expect(webhook.properties!.url).toMatchObject({ maxLength: MAX_WEBHOOK_URL_LENGTH, minLength: 1 });
    expect(webhook.properties!.events!.items!.enum).toEqual([...RUN_EVENT_TYPES]);
    expect(webhook.properties!.tags).toMatchObject({ maxItems: MAX_WEBHOOK_TAGS });
    expect(webhook.properties!.durable).toMatchObject({ type: 'boolean' });

    const bulk = component('BulkCancelRunsRequest');
    expect(bulk.properties!.runIds).toMatchObject({
      minItems: 1,
      maxItems: MAX_BULK_CANCEL_RUN_IDS,
      items: { type: 'string', minLength: 1, maxLength: MAX_RUN_ID_LENGTH },
    });
    expect(component('CancelRunRequest').properties!.reason).toMatchObject({
      maxLength: MAX_CANCEL_REASON_LENGTH,
    });
    expect(component('PauseRunRequest').properties!.reason).toMatchObject({
      maxLength: MAX_PAUSE_REASON_LENGTH,
    });
    expect(component('PauseRunRequest').properties!.drainPolicy!.enum).toEqual([
      'immediate',
      'drain-current-node',
    ]);
    expect(component('ForkRunRequest').required).toEqual(['mode']);
  });

  it('says what the validation pipe enforces: the schema and the pipe agree on each body, at and one past each limit', async () => {
    const ajv = new Ajv2020({ strict: true });
    const id = (n: number) => 'x'.repeat(n);
    const many = (n: number, item = 't') => Array.from({ length: n }, () => item);
    const cases: [DtoClass, Record<string, unknown>, boolean][] = [
      [CreateRunRequestDto, { workflowId: id(MAX_ID_LENGTH) }, true],
      [CreateRunRequestDto, { workflowId: id(MAX_ID_LENGTH + 1) }, false],
      [CreateRunRequestDto, { workflowId: '' }, false],
      [CreateRunRequestDto, { workflowId: 'w', tenantId: id(MAX_ID_LENGTH + 1) }, false],
      [CreateRunRequestDto, { workflowId: 'w', callbackUrl: id(MAX_CALLBACK_URL_LENGTH) }, true],
      [CreateRunRequestDto, { workflowId: 'w', callbackUrl: id(MAX_CALLBACK_URL_LENGTH + 1) }, false],
      [CreateRunRequestDto, { workflowId: 'w', tags: many(MAX_TAGS) }, true],
      [CreateRunRequestDto, { workflowId: 'w', tags: many(MAX_TAGS + 1) }, false],
      [CreateRunRequestDto, { workflowId: 'w', inputs: { any: ['thing'] } }, true],
      [CreateRunRequestDto, { workflowId: 'w', notInTheSchema: 1 }, false],
      [CreateRunRequestDto, {}, false],
      [BulkCancelRunsRequestDto, { runIds: [id(MAX_RUN_ID_LENGTH)] }, true],
      [BulkCancelRunsRequestDto, { runIds: [id(MAX_RUN_ID_LENGTH + 1)] }, false],
      [BulkCancelRunsRequestDto, { runIds: many(MAX_BULK_CANCEL_RUN_IDS, 'r') }, true],
      [BulkCancelRunsRequestDto, { runIds: many(MAX_BULK_CANCEL_RUN_IDS + 1, 'r') }, false],
      [BulkCancelRunsRequestDto, { runIds: [] }, false],
      [RegisterWebhookRequestDto, { url: 'https://h', events: ['run.completed'] }, true],
      [RegisterWebhookRequestDto, { url: 'https://h', events: ['run.nope'] }, false],
      [
        RegisterWebhookRequestDto,
        { url: 'https://h', events: ['run.completed'], tags: many(MAX_WEBHOOK_TAGS + 1) },
        false,
      ],
      [PauseRunRequestDto, { reason: id(MAX_PAUSE_REASON_LENGTH), drainPolicy: 'immediate' }, true],
      [PauseRunRequestDto, { reason: id(MAX_PAUSE_REASON_LENGTH + 1) }, false],
      [PauseRunRequestDto, { drainPolicy: 'later' }, false],
      [ForkRunRequestDto, { mode: 'replay', fromSeq: 0 }, true],
      [ForkRunRequestDto, { mode: 'replay', fromSeq: -1 }, false],
      [ForkRunRequestDto, { mode: 'replay', fromSeq: 1.5 }, false],
    ];
    for (const [dto, body, accepted] of cases) {
      const label = `${dto.name} ${JSON.stringify(body).slice(0, 80)}`;
      const schemaAccepts = ajv.validate(classSchema(dto), body);
      expect({ label, pipe: await pipeAccepts(dto, body), schema: schemaAccepts }).toEqual({
        label,
        pipe: accepted,
        schema: accepted,
      });
    }
  });

  it('refuses to describe a validator it has no translation for, rather than leave it out', () => {
    class WithEmail {
      @IsString() @IsEmail() email!: string;
    }
    class WithCondition {
      @ValidateIf(() => true) @IsString() name!: string;
    }
    class Plain {
      @IsOptional() @IsString() name?: string;
    }
    expect(() => classSchema(WithEmail)).toThrow('WithEmail.email: no JSON Schema for @isEmail');
    expect(() => classSchema(WithCondition)).toThrow('WithCondition.name');
    expect(classSchema(Plain)).toEqual({
      type: 'object',
      properties: { name: { type: 'string' } },
      additionalProperties: false,
    });
  });
});
