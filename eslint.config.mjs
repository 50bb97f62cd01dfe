import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';

const frameworkImports = ['@nestjs/*', 'typeorm', 'pg', 'kafkajs', '@opentelemetry/*', 'class-validator', 'class-transformer'];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.infra/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  prettier,
  {
    files: ['**/*.ts', '**/*.mts'],
    plugins: { '@nx': nx },
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-extraneous-class': 'off',
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            { sourceTag: 'type:app', notDependOnLibsWithTags: ['type:e2e'] },
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:testing', 'type:contract', 'type:util', 'type:infra'] },
            {
              sourceTag: 'type:domain',
              onlyDependOnLibsWithTags: ['type:domain', 'type:util', 'type:contract'],
              bannedExternalImports: frameworkImports,
            },
            {
              sourceTag: 'type:contract',
              onlyDependOnLibsWithTags: ['type:contract', 'type:util'],
              bannedExternalImports: ['@nestjs/*', 'typeorm', 'pg', 'kafkajs'],
            },
            { sourceTag: 'type:infra', onlyDependOnLibsWithTags: ['type:infra', 'type:contract', 'type:util'] },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util'], bannedExternalImports: frameworkImports },
            { sourceTag: 'type:testing', notDependOnLibsWithTags: ['type:e2e'] },
            { sourceTag: 'scope:engine', onlyDependOnLibsWithTags: ['scope:engine', 'scope:shared'] },
            { sourceTag: 'scope:projector', onlyDependOnLibsWithTags: ['scope:projector', 'scope:shared'] },
            { sourceTag: 'scope:interrupt', onlyDependOnLibsWithTags: ['scope:interrupt', 'scope:shared'] },
            { sourceTag: 'scope:token', onlyDependOnLibsWithTags: ['scope:token', 'scope:shared'] },
            { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:gateway', 'scope:shared'] },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@nx/enforce-module-boundaries': 'off',
    },
  },
);
