import { getMetadataStorage } from 'class-validator';
import { descriptionOf } from '../common/describe.decorator';
import type { JsonSchema } from './gateway-routes.constants';

/** A class whose class-validator decorators are the contract of a request body (or query). */
export type DtoClass = abstract new (...args: never[]) => unknown;

type Keywords = Record<string, unknown>;
/** One decorator's entry in class-validator's metadata storage (the type is not exported by name). */
type ValidationMetadata = ReturnType<
  ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']
>[number];

/**
 * What each class-validator decorator the gateway uses says, as JSON Schema keywords (2020-12) on the
 * value it checks (the property, or each item with `{ each: true }`). A validator missing here fails
 * {@link classSchema} loudly, so a new one is translated before it can reach the document unsaid.
 */
const KEYWORDS: Readonly<Record<string, (constraints: readonly unknown[]) => Keywords>> = {
  isString: () => ({ type: 'string' }),
  isInt: () => ({ type: 'integer' }),
  isBoolean: () => ({ type: 'boolean' }),
  isObject: () => ({ type: 'object' }),
  isArray: () => ({ type: 'array' }),
  isNotEmpty: () => ({ minLength: 1 }),
  minLength: ([n]) => ({ minLength: n }),
  maxLength: ([n]) => ({ maxLength: n }),
  min: ([n]) => ({ minimum: n }),
  max: ([n]) => ({ maximum: n }),
  arrayMinSize: ([n]) => ({ minItems: n }),
  arrayMaxSize: ([n]) => ({ maxItems: n }),
  isIn: ([values]) => {
    const list = [...(values as readonly unknown[])];
    return list.every((v) => typeof v === 'string') ? { type: 'string', enum: list } : { enum: list };
  },
  // `@InstantQuery()`: parsed to a `Date`, a string on the wire.
  isInstant: () => ({ type: 'string', format: 'date-time' }),
};

/**
 * Checks no JSON Schema keyword can state (a cross-field rule, a host limit inside a free-form
 * object): the property's {@link Describe} text says them.
 */
const PROSE_ONLY: ReadonlySet<string> = new Set(['withinRunLimits', 'overlayWithinRunLimits']);

function merge(into: Keywords, add: Keywords): void {
  for (const [k, v] of Object.entries(add)) {
    // `@IsNotEmpty()` next to a `@MinLength(n)` says less than it.
    const had = into[k];
    if (k === 'minLength' && typeof had === 'number' && typeof v === 'number' && had >= v) continue;
    into[k] = v;
  }
}

function keywordsOf(meta: ValidationMetadata, dto: DtoClass): Keywords | undefined {
  const where = `${dto.name}.${meta.propertyName}`;
  if (meta.type === 'conditionalValidation' && meta.name === 'isOptional') return undefined;
  // `@Allow()`: let through, checked by the handler; whoever checks it documents it (the route table).
  if (meta.type === 'whitelistValidation') return undefined;
  if (meta.type !== 'customValidation' || meta.name === undefined)
    throw new Error(`${where}: no JSON Schema for a ${meta.type} validator (${meta.name ?? 'unnamed'})`);
  if (PROSE_ONLY.has(meta.name)) return undefined;
  const keywords = KEYWORDS[meta.name];
  if (!keywords)
    throw new Error(`${where}: no JSON Schema for @${meta.name} (add it to KEYWORDS in class-schema.ts)`);
  return keywords(meta.constraints ?? []);
}

/**
 * The JSON Schema of a body a DTO class validates, read from the class-validator metadata the
 * validation pipe enforces: the same decorators, so the same constants (a `@MaxLength(MAX_ID_LENGTH)`
 * is a `maxLength` of that value). Properties without `@IsOptional()` are required; no other
 * property is allowed (the pipe refuses unknown keys). Prose comes from {@link Describe}.
 * @throws on a validator it has no translation for.
 */
export function classSchema(dto: DtoClass): JsonSchema {
  const byProperty = new Map<string, ValidationMetadata[]>();
  for (const meta of getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false)) {
    byProperty.set(meta.propertyName, [...(byProperty.get(meta.propertyName) ?? []), meta]);
  }
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, metas] of byProperty) {
    const own: Keywords = {};
    const items: Keywords = {};
    // class-validator stores a property's decorators bottom-up; read them as written.
    for (const meta of [...metas].reverse()) {
      const keywords = keywordsOf(meta, dto);
      if (keywords) merge(meta.each ? items : own, keywords);
    }
    if (Object.keys(items).length > 0) own.items = items;
    const description = descriptionOf(dto, name);
    properties[name] = { ...(description !== undefined ? { description } : {}), ...own };
    if (!metas.some((m) => m.name === 'isOptional')) required.push(name);
  }
  const description = descriptionOf(dto);
  return {
    type: 'object',
    ...(description !== undefined ? { description } : {}),
    ...(required.length > 0 ? { required } : {}),
    properties,
    additionalProperties: false,
  };
}

/** The name a DTO's schema has under `components/schemas`: its class name less `Dto`. */
export function componentNameOf(dto: DtoClass): string {
  return dto.name.replace(/Dto$/, '');
}
