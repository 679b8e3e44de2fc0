import tseslint from 'typescript-eslint';

const ERROR_BODY_RULES = [
  { selector: "NewExpression[callee.name='AppError']", message: 'Build errors with the catalogue (errors.x() from src/errors/catalogue.ts).' },
  {
    selector: "CallExpression[callee.property.name='send'] ObjectExpression:has(> Property[key.name='error']):has(> Property[key.name='message'])",
    message: 'An error body is rendered from the catalogue: throw errors.x() instead of sending one by hand.',
  },
  {
    selector: "CallExpression[callee.property.name=/^(code|status)$/][arguments.0.type='Literal'][arguments.0.value>=400]",
    message: 'An error status comes from the catalogue: throw errors.x() instead of setting it by hand.',
  },
];

const MODULE_STATE_MESSAGE = 'No module-level mutable state: make it a field of an object the composition root (src/context.ts) builds.';
const MODULE_STATE_RULES = [
  { selector: "Program > VariableDeclaration[kind='let']", message: MODULE_STATE_MESSAGE },
  { selector: "Program > ExportNamedDeclaration > VariableDeclaration[kind='let']", message: MODULE_STATE_MESSAGE },
  { selector: "Program > VariableDeclaration > VariableDeclarator > NewExpression[callee.name=/^(Map|WeakMap|Set|WeakSet)$/][arguments.length=0]", message: MODULE_STATE_MESSAGE },
  { selector: "Program > ExportNamedDeclaration > VariableDeclaration > VariableDeclarator > NewExpression[callee.name=/^(Map|WeakMap|Set|WeakSet)$/][arguments.length=0]", message: MODULE_STATE_MESSAGE },
];

/**
 * Module-level state still allowed (docs/decisions.md, issue 25 point 3): memos of pure functions
 * whose answer never changes (parsed Accept headers, time zones), a marker set, process-wide
 * values made on first use, and the open transaction's runner, kept only while it is open. New
 * entries need a reason here.
 */
const MODULE_STATE_ALLOWED = [
  'src/access/local-time.ts', // time zone clocks by name (pure)
  'src/crypto/chain.ts', // trust anchors parsed once
  'src/crypto/passwords.ts', // the decoy hash made once
  'src/db/transaction.ts', // the synchronous runner of an open transaction, weakly by connection
  'src/http/app.ts', // the route hooks placed by addRouteHook (a marker set)
  'src/http/negotiation.ts', // parsed Accept headers (pure)
];

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
  // Every error body comes from the one catalogue (src/errors/catalogue.ts), rendered by src/http/error-handler.ts;
  // no module-level mutable state (the composition root builds everything, src/context.ts).
  { files: ['src/**'], ignores: ['src/errors/**', ...MODULE_STATE_ALLOWED], rules: { 'no-restricted-syntax': ['error', ...ERROR_BODY_RULES, ...MODULE_STATE_RULES] } },
  { files: MODULE_STATE_ALLOWED, rules: { 'no-restricted-syntax': ['error', ...ERROR_BODY_RULES] } },
  { files: ['src/errors/**'], rules: { 'no-restricted-syntax': ['error', ...MODULE_STATE_RULES] } },
  { files: ['test/**', 'bench/**', 'examples/**', 'src/cli/**', 'src/simulator/**'], rules: { 'no-console': 'off' } },
  // Tests read dynamic JSON response bodies.
  { files: ['test/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);
