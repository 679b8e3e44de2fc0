import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'bin/**', 'scripts/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  { files: ['test/**', 'bench/**', 'examples/**', 'src/cli/**', 'src/simulator/**'], rules: { 'no-console': 'off' } },
  // Tests read dynamic JSON response bodies.
  { files: ['test/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);
