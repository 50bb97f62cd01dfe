import { ValidationPipe } from '@nestjs/common';
import { ApiError } from './api.error';
import { flattenValidationErrors } from './validation-errors.mapper';

/**
 * The gateway's DTO validation: unknown fields are rejected, and every failure is a
 * `400 validation_error` listing `details.errors[{path, message}]`.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => ApiError.validation('The request is invalid.', flattenValidationErrors(errors)),
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
    exceptionFactory: (errors) => ApiError.validation('The query parameters are invalid.', flattenValidationErrors(errors)),
  });
}
