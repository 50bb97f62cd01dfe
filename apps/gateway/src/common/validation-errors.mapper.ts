import type { ValidationError } from 'class-validator';
import type { FieldError } from './api.error';

/**
 * Flattens class-validator's error tree to `[{path, message}]`, one entry per failed constraint,
 * with `/`-separated paths (`/tags/0`, `/workflowId`).
 */
export function flattenValidationErrors(errors: readonly ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const path = `${parent}/${error.property}`;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ path, message }));
    return [...own, ...flattenValidationErrors(error.children ?? [], path)];
  });
}
