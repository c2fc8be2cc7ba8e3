import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'test/fixtures/**', '.data/**', '.cache/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node built-ins (as the Temporal samples ban them),
    // and activities and connectors only as types; the pure modules named here (validation, wording) are the exceptions.
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [...builtinModules, ...builtinModules.map((name) => `node:${name}`)].map((name) => ({
            name,
            message: 'Workflow code may not use Node built-ins: do I/O in an activity.',
          })),
          patterns: [
            {
              regex:
                '^(\\.\\./)+(activities|connectors/(?!cli-command$|config-problems$|counted$|profile-choice$|s3-reference$|bom-repair/job-input$|bom-repair/listing$|certificate-report/model$|erp-orders/read-warnings$|erp-orders/rejected-said$|plm-import/rings-said$|short-hash$|staging/run-key$))',
              allowTypeImports: true,
              message: 'Workflows import activities and connectors as types only (import type).',
            },
          ],
        },
      ],
    },
  },
  {
    // connectors/ is everything a job does that is not Temporal: activities turn its errors into Temporal failures.
    files: ['connectors/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^@temporalio/', message: 'connectors/ does not use Temporal: do that in activities/.' },
            {
              regex: '^(\\.\\./)+(activities|workflows|worker|cli)(/|$)',
              message: 'connectors/ sits below activities, workflows, the worker and the CLI.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.cjs', '**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        __dirname: 'readonly',
        console: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
