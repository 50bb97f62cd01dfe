import type { ValidationError } from 'class-validator';
import { flattenValidationErrors } from './validation-errors.mapper';

describe('flattenValidationErrors', () => {
  it('lists every failed constraint with a /-separated path', () => {
    const errors: ValidationError[] = [
      {
        property: 'workflowId',
        constraints: {
          isString: 'workflowId must be a string',
          isNotEmpty: 'workflowId should not be empty',
        },
        children: [],
      },
      {
        property: 'tags',
        children: [
          { property: '1', constraints: { isString: 'each value in tags must be a string' }, children: [] },
        ],
      },
    ];
    expect(flattenValidationErrors(errors)).toEqual([
      { path: '/workflowId', message: 'workflowId must be a string' },
      { path: '/workflowId', message: 'workflowId should not be empty' },
      { path: '/tags/1', message: 'each value in tags must be a string' },
    ]);
  });
});
