import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import reactRefresh from 'eslint-plugin-react-refresh';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const features = ['auth', 'editor', 'datasets', 'runs', 'compare', 'providers', 'deployments'];

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'coverage', 'src/lib/api/schema.d.ts'] },
  {
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    files: ['**/*.{ts,tsx}'],
    languageOptions: { ecmaVersion: 2022, globals: { ...globals.browser, ...globals.node } },
    plugins: { 'react-hooks': reactHooks, 'react-refresh': reactRefresh },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'react-refresh/only-export-components': ['warn', { allowConstantExport: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  // A feature does not import another feature; shared code lives in src/lib.
  ...features.map((feature) => ({
    files: [`src/features/${feature}/**/*.{ts,tsx}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: features
                .filter((other) => other !== feature)
                .flatMap((other) => [
                  `@/features/${other}/*`,
                  `**/features/${other}/*`,
                  `../../${other}/*`,
                  `../${other}/*`,
                ]),
              message: 'A feature does not import another feature; move shared code to src/lib.',
            },
          ],
        },
      ],
    },
  })),
  prettier,
);
