import 'reflect-metadata';

const DESCRIPTION = Symbol('openwop:description');

/**
 * The prose of a request class or of one of its properties, for the OpenAPI document. It is all a
 * DTO says besides its validators: types, limits, enums and which properties are required are read
 * from its class-validator decorators (`discovery/class-schema.ts`), so the document cannot drift
 * from what is enforced.
 */
export function Describe(text: string): ClassDecorator & PropertyDecorator {
  return (target: object, propertyKey?: string | symbol) => {
    if (propertyKey === undefined) Reflect.defineMetadata(DESCRIPTION, text, target);
    else Reflect.defineMetadata(DESCRIPTION, text, target, propertyKey);
  };
}

/** The text {@link Describe} gave a class (`property` absent) or one of its properties. */
export function descriptionOf(
  target: abstract new (...args: never[]) => unknown,
  property?: string,
): string | undefined {
  const text: unknown =
    property === undefined
      ? Reflect.getOwnMetadata(DESCRIPTION, target)
      : Reflect.getMetadata(DESCRIPTION, target.prototype as object, property);
  return typeof text === 'string' ? text : undefined;
}
