import { runConfigurableProblems, type LimitProblem } from '@openwop/contracts';
import { ValidateBy, type ValidationArguments } from 'class-validator';

function describe(problems: readonly LimitProblem[]): string {
  return problems.map((p) => `${p.path.replace(/^\//, '').replace(/\//g, '.')} ${p.message}`).join('; ');
}

/**
 * `RunOptions.configurable` within the host's limits (`runConfigurableProblems`):
 * `recursionLimit` at most `limits.maxNodeExecutions`, `escalationThreshold` in [0, 1].
 */
export function WithinRunLimits(): PropertyDecorator {
  return ValidateBy({
    name: 'withinRunLimits',
    validator: {
      validate: (value: unknown) => runConfigurableProblems(value).length === 0,
      defaultMessage: (args?: ValidationArguments) => describe(runConfigurableProblems(args?.value)),
    },
  });
}

/** A fork's `runOptionsOverlay` whose `configurable` is {@link WithinRunLimits}. */
export function OverlayWithinRunLimits(): PropertyDecorator {
  const problems = (value: unknown) =>
    typeof value === 'object' && value !== null
      ? runConfigurableProblems((value as { configurable?: unknown }).configurable, '/configurable')
      : [];
  return ValidateBy({
    name: 'overlayWithinRunLimits',
    validator: {
      validate: (value: unknown) => problems(value).length === 0,
      defaultMessage: (args?: ValidationArguments) => describe(problems(args?.value)),
    },
  });
}
