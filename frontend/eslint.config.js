import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import reactRefresh from 'eslint-plugin-react-refresh';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const root = dirname(fileURLToPath(import.meta.url));

/** Every folder of src/features is a feature: the zones follow the tree, not a list. */
export const features = readdirSync(join(root, 'src', 'features'), {
  withFileTypes: true,
})
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/**
 * The layers import one way only: app -> features -> lib. A feature does not import
 * another feature (shared code lives in src/lib), and src/lib imports no feature and
 * not the app. Checked on resolved paths, so `@/features/x`, `../../x` and
 * `../../../features/x` are the same import.
 */
export const zones = [
  ...features.map((feature) => ({
    target: `./src/features/${feature}`,
    from: './src/features',
    except: [`./${feature}`],
    message: 'A feature does not import another feature; move shared code to src/lib.',
  })),
  {
    target: './src/features',
    from: './src/app',
    message: 'The app imports features, never the other way round.',
  },
  {
    target: ['./src/lib', './src/test'],
    from: ['./src/features', './src/app'],
    message: 'src/lib is shared by the features: it imports none of them (nor the app).',
  },
];

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'coverage', 'src/lib/api/schema.d.ts'] },
  {
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    files: ['**/*.{ts,tsx}'],
    languageOptions: { ecmaVersion: 2022, globals: { ...globals.browser, ...globals.node } },
    plugins: { 'react-hooks': reactHooks, 'react-refresh': reactRefresh, 'import-x': importX },
    settings: {
      'import-x/resolver-next': [
        createTypeScriptImportResolver({ project: join(root, 'tsconfig.app.json') }),
      ],
    },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'react-refresh/only-export-components': ['warn', { allowConstantExport: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'import-x/no-restricted-paths': ['error', { basePath: root, zones }],
    },
  },
  prettier,
);
