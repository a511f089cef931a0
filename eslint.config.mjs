// Lint enforces the one architectural rule (DESIGN.md): app/ → components/ → simulations/ → lib/,
// nothing imports leftwards; and bans ambient time and randomness where determinism matters.
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const layer = (forbidden) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: forbidden.map((dir) => ({
        group: [`@/${dir}`, `@/${dir}/*`, `**/${dir}`, `**/${dir}/*`, `../${dir}/*`, `../../${dir}/*`],
        message: `Imports point rightwards only: app/ → components/ → simulations/ → lib/. This file may not import ${dir}/.`,
      })),
    },
  ],
});

const ambient = [
  ['Math', 'random'],
  ['Date', 'now'],
  ['performance', 'now'],
  ['crypto', 'randomUUID'],
].map(([object, property]) => ({
  object,
  property,
  message: 'Time and randomness come from env (seeded, virtual), never from the host.',
}));

const determinism = {
  'no-restricted-properties': ['error', ...ambient],
  'no-restricted-globals': [
    'error',
    { name: 'setTimeout', message: 'Use env.sleep / the virtual clock.' },
    { name: 'setInterval', message: 'Use env.sleep / the virtual clock.' },
  ],
  'no-restricted-syntax': [
    'error',
    { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'new Date() reads the host clock; use env.clock.' },
  ],
};

/** Imports a room may not make inside its folder: `patterns` of paths, and why. */
const room = (patterns, message) => ({ 'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }] });

export default tseslint.config(
  { ignores: ['node_modules/**', '.next/**', '.bench/**', '.cli-test/**', 'out/**', '.next-package/**', 'dist/**', 'next-env.d.ts', 'tests/artifacts/**', 'public/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  { files: ['lib/**/*.ts'], rules: { ...layer(['simulations', 'components', 'app']), ...determinism } },
  { files: ['simulations/**/*.ts'], rules: { ...layer(['components', 'app']), ...determinism } },
  { files: ['components/**/*.{ts,tsx}'], rules: layer(['app']) },
  // Rooms inside simulations/ (DESIGN.md): the engine reaches the database through its port only,
  // and knows nothing of lessons, runs or the learner realm's callers; lessons never reach a
  // database implementation; the lab's controller imports no view and no action.
  {
    files: ['simulations/engine/**/*.ts'],
    rules: {
      ...layer(['components', 'app']),
      ...determinism,
      ...room(['**/db/pglite', '**/db/postgres', '**/db/pglite-statements', '**/lessons/*', '**/lessons/**', '**/run/*', '**/course/*'], 'The engine reaches the database through db/port.ts and knows nothing of lessons, runs or the course.'),
    },
  },
  {
    files: ['simulations/lessons/**/*.ts', 'simulations/providers/**/*.ts'],
    rules: {
      ...layer(['components', 'app']),
      ...determinism,
      ...room(['**/db/pglite', '**/db/postgres', '**/db/pglite-statements', '**/run/*'], 'Lessons and providers are data and behaviour for the engine: no database implementation, no runner.'),
    },
  },
  {
    files: ['components/lab/controller/**/*.{ts,tsx}'],
    rules: {
      ...layer(['app']),
      ...room(['**/view/*', '**/view/**', '**/actions/*', '../*.tsx', '**/*.tsx'], 'The lab controller owns its state: it imports no view and no action.'),
    },
  },
  // The rules of hooks (no hook after an early return or in a condition) and complete effect
  // dependencies, in the React code.
  {
    files: ['app/**/*.{ts,tsx}', 'components/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
);
