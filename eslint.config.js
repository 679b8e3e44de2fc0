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
  // Every error body comes from the one catalogue (src/errors/catalogue.ts), rendered by src/http/error-handler.ts.
  {
    files: ['src/**'],
    ignores: ['src/errors/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='AppError']", message: 'Build errors with the catalogue (errors.x() from src/errors/catalogue.ts).' },
        {
          selector: "CallExpression[callee.property.name='send'] ObjectExpression:has(> Property[key.name='error']):has(> Property[key.name='message'])",
          message: 'An error body is rendered from the catalogue: throw errors.x() instead of sending one by hand.',
        },
        {
          selector: "CallExpression[callee.property.name=/^(code|status)$/][arguments.0.type='Literal'][arguments.0.value>=400]",
          message: 'An error status comes from the catalogue: throw errors.x() instead of setting it by hand.',
        },
      ],
    },
  },
  { files: ['test/**', 'bench/**', 'examples/**', 'src/cli/**', 'src/simulator/**'], rules: { 'no-console': 'off' } },
  // Tests read dynamic JSON response bodies.
  { files: ['test/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);
