import { ValidationPipe, type ArgumentMetadata } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { ApiError } from './api.error';
import { flattenValidationErrors } from './validation-errors.mapper';

type Constructor = new (...args: never[]) => unknown;

/** The properties a DTO class declares (every one carries at least one validation decorator). */
function declaredProperties(metatype: Constructor): ReadonlySet<string> {
  return new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(metatype, '', true, false)
      .map((m) => m.propertyName),
  );
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether the mapper left `value` as plain data (no nested DTO class of its own, at the top or in an array). */
function isFreeForm(value: unknown): boolean {
  // A plain object's prototype is an `Object.prototype` (of any realm: a structured clone's may be
  // another one's) or null; a DTO instance has its class's prototype in between.
  const plain = (v: unknown) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return true;
    const proto = Object.getPrototypeOf(v) as object | null;
    return proto === null || Object.getPrototypeOf(proto) === null;
  };
  return Array.isArray(value) ? value.every(plain) : plain(value);
}

/**
 * The gateway's body validation, the one layer every DTO body goes through:
 * - the body must be a JSON object (an array, string or number is `400`); no body counts as `{}`,
 *   so required fields are reported as missing;
 * - every key is data: one the DTO does not declare is refused by name, whatever it is called
 *   (`constructor`, `__proto__` and `toString` included, which the object mapper would otherwise
 *   skip silently);
 * - free-form members (`inputs`, `metadata`, `configurable`, …; not nested DTOs) reach the handler exactly as
 *   parsed, own keys like `constructor` kept (Nest's pipe and the object mapper drop them; they
 *   only ever see a copy).
 */
class BodyValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const metatype = metadata.metatype as Constructor | undefined;
    if (metadata.type !== 'body' || !metatype || !this.toValidate(metadata))
      return super.transform(value, metadata);
    const body = value === undefined ? {} : value;
    if (!isJsonObject(body)) {
      throw ApiError.validation('The body must be a JSON object.', [
        { path: '', message: 'must be an object' },
      ]);
    }
    const declared = declaredProperties(metatype);
    const unknown = Object.keys(body).filter((key) => !declared.has(key));
    if (unknown.length > 0) {
      throw ApiError.validation(
        'The request is invalid.',
        unknown.map((key) => ({ path: `/${key}`, message: `property ${key} should not exist` })),
      );
    }
    // Nest's pipe deletes `__proto__`/`constructor` keys in place, at any depth: it gets a copy, so
    // the parsed body (where JSON.parse made them plain own properties) stays as the client sent it.
    const dto = (await super.transform(structuredClone(body), metadata)) as Record<string, unknown>;
    for (const key of Object.keys(body)) {
      const raw = body[key];
      if (typeof raw === 'object' && raw !== null && isFreeForm(dto[key])) {
        Object.defineProperty(dto, key, { value: raw, enumerable: true, writable: true, configurable: true });
      }
    }
    return dto;
  }
}

/**
 * The gateway's DTO validation: unknown fields are rejected, and every failure is a
 * `400 validation_error` listing `details.errors[{path, message}]`. On a body, see
 * {@link BodyValidationPipe}.
 */
export function createValidationPipe(): ValidationPipe {
  return new BodyValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) =>
      ApiError.validation('The request is invalid.', flattenValidationErrors(errors)),
  });
}

/**
 * Validation for query strings: like {@link createValidationPipe}, but parameters the DTO does not
 * declare are dropped rather than rejected, so cache-busters and optional extensions
 * (`?a2uiDelta=1`) do not fail a request.
 */
export function createQueryValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: false,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) =>
      ApiError.validation('The query parameters are invalid.', flattenValidationErrors(errors)),
  });
}
