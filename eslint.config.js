import js from '@eslint/js'
import jsxA11y from 'eslint-plugin-jsx-a11y'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

/**
 * `npm run lint`. typescript-eslint's recommended rules, plus the type-aware ones that catch a
 * promise nobody waits for (a write outside its transaction, an error nobody sees); the rules of
 * hooks and the accessibility rules on the web app. Formatting is Prettier's (`.prettierrc.json`),
 * not the linter's. docs/decisions/0012 says why each rule switched off is off.
 */
export default tseslint.config(
  { ignores: ['dist/', 'data/', 'coverage/', 'test-results/', 'node_modules/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    rules: {
      // A leading underscore marks what is left unused on purpose (a skipped argument or element).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    files: ['src/server/**', 'tests/**', 'bench/**', 'scripts/**', 'docs/**', '*.config.{ts,js}'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['tests/**'],
    rules: {
      // Tests read JSON answers whose shape is what they check with expect(); typing them would be
      // an unchecked claim, not a check.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // The web app, and the scripts the server hands to browsers (the API reference page's).
    files: ['src/web/**', 'public/**', 'tests/web/**', 'src/server/routes/reference/*.js'],
    languageOptions: { globals: globals.browser },
  },
  {
    files: ['src/web/**/*.{ts,tsx}', 'tests/web/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat['recommended-latest'],
  },
  {
    files: ['src/web/**/*.tsx'],
    ...jsxA11y.flatConfigs.recommended,
  },
)
