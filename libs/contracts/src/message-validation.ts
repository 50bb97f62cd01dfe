import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { CommandEnvelope } from './envelope';
import { SchemaValidationError } from './schema-validation';

type DataClass = new () => object;

/**
 * Validates a command envelope at a consumer edge: the envelope fields, then `data` against the
 * class-validator class registered for its `type`. Throws {@link SchemaValidationError}.
 */
export function assertCommand<T extends CommandEnvelope>(
  value: unknown,
  dataClasses: Readonly<Record<string, DataClass>>,
): T {
  const v = value as Partial<CommandEnvelope> | null;
  const problems: { path: string; message: string }[] = [];
  if (typeof v !== 'object' || v === null) throw new SchemaValidationError('CommandEnvelope', [{ path: '', message: 'must be an object' }]);
  for (const field of ['id', 'type', 'occurredAt', 'correlationId'] as const) {
    if (typeof v[field] !== 'string' || v[field] === '') problems.push({ path: `/${field}`, message: 'must be a non-empty string' });
  }
  if (typeof v.actor !== 'object' || v.actor === null || typeof v.actor.tenant !== 'string') {
    problems.push({ path: '/actor', message: 'must carry tenant and principal' });
  }
  const dataClass = typeof v.type === 'string' ? dataClasses[v.type] : undefined;
  if (!dataClass) problems.push({ path: '/type', message: `unknown command type ${String(v.type)}` });
  if (problems.length) throw new SchemaValidationError('CommandEnvelope', problems);
  const data = plainToInstance(dataClass!, v.data ?? {});
  const errors = validateSync(data, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length) {
    throw new SchemaValidationError(
      `${String(v.type)} data`,
      errors.flatMap((e) => Object.values(e.constraints ?? {}).map((m) => ({ path: `/data/${e.property}`, message: m }))),
    );
  }
  return { ...v, data } as unknown as T;
}
