import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import { importX, createNodeResolver } from 'eslint-plugin-import-x';
import globals from 'globals';

// The browser pages the gateway serves as static files (plain ES modules, no build step).
const browserPages = ['apps/gateway/admin-ui/**/*.js', 'apps/gateway/link-ui/**/*.js'];

const frameworkImports = [
  '@nestjs/*',
  'typeorm',
  'pg',
  'kafkajs',
  '@opentelemetry/*',
  'class-validator',
  'class-transformer',
];

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '.infra/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
      ...browserPages.map((glob) => `!${glob}`),
    ],
  },
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
            // Apps never import apps; only the one-process host composes the services' modules.
            { sourceTag: 'type:app', notDependOnLibsWithTags: ['type:app', 'type:host', 'type:e2e'] },
            { sourceTag: 'type:host', notDependOnLibsWithTags: ['type:host', 'type:e2e'] },
            {
              sourceTag: 'type:e2e',
              onlyDependOnLibsWithTags: ['type:testing', 'type:contract', 'type:util', 'type:infra'],
            },
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
            {
              sourceTag: 'type:infra',
              onlyDependOnLibsWithTags: ['type:infra', 'type:contract', 'type:util'],
            },
            {
              sourceTag: 'type:util',
              onlyDependOnLibsWithTags: ['type:util'],
              bannedExternalImports: frameworkImports,
            },
            { sourceTag: 'type:testing', notDependOnLibsWithTags: ['type:e2e'] },
            { sourceTag: 'scope:engine', onlyDependOnLibsWithTags: ['scope:engine', 'scope:shared'] },
            { sourceTag: 'scope:projector', onlyDependOnLibsWithTags: ['scope:projector', 'scope:shared'] },
            { sourceTag: 'scope:interrupt', onlyDependOnLibsWithTags: ['scope:interrupt', 'scope:shared'] },
            { sourceTag: 'scope:token', onlyDependOnLibsWithTags: ['scope:token', 'scope:shared'] },
            { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:gateway', 'scope:shared'] },
            { sourceTag: 'scope:notifier', onlyDependOnLibsWithTags: ['scope:notifier', 'scope:shared'] },
            {
              sourceTag: 'scope:host',
              onlyDependOnLibsWithTags: [
                'scope:engine',
                'scope:projector',
                'scope:interrupt',
                'scope:token',
                'scope:gateway',
                'scope:notifier',
                'scope:shared',
              ],
            },
            // The CLI talks to a host over the wire: the SDK and the contract and util libs, nothing else.
            { sourceTag: 'scope:cli', onlyDependOnLibsWithTags: ['type:contract', 'type:util'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
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
  {
    // Import cycles fail lint, inside a project (cycles between projects are the Nx rule's).
    files: ['**/*.ts', '**/*.mts', ...browserPages],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.mts', '.js'],
      // Another project's build output is the Nx rule's business: never parse it.
      'import-x/ignore': ['/dist/'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.mts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.mts', '.js', '.json'] })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    files: browserPages,
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: browserPages,
    languageOptions: { sourceType: 'module', ecmaVersion: 2023, globals: { ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': 'off',
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
      'no-implicit-globals': 'error',
      'no-var': 'error',
    },
  },
);
