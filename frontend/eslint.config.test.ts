import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const features = readdirSync(join(import.meta.dirname, 'src', 'features'), {
  withFileTypes: true,
})
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** The import-boundary errors ESLint reports for `code` placed at `file` (under src/). */
async function boundaryErrors(file: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: import.meta.dirname });
  const [result] = await eslint.lintText(code, { filePath: file });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'import-x/no-restricted-paths')
    .map((m) => m.message);
}

// ESLint loads the TypeScript parser and resolver on the first file: allow it a minute.
describe('the import boundaries (eslint.config.js)', { timeout: 60_000 }, () => {
  it('refuses src/lib importing a feature, by alias or by a relative path', async () => {
    const errors = await boundaryErrors(
      'src/lib/example.ts',
      [
        "import { applyEvent } from '@/features/runs/model/runView';",
        "import { runLabel } from '../features/compare/model/compareData';",
        'export const used = [applyEvent, runLabel];',
        '',
      ].join('\n'),
    );
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/src\/lib is shared by the features/);
  });

  it('refuses a feature importing another feature, and allows its own files and src/lib', async () => {
    const errors = await boundaryErrors(
      'src/features/compare/example.ts',
      [
        "import { applyEvent } from '../runs/model/runView';",
        "import { runLabel } from './model/compareData';",
        "import { toCsv } from '@/lib/csv';",
        'export const used = [applyEvent, runLabel, toCsv];',
        '',
      ].join('\n'),
    );
    expect(errors).toEqual([expect.stringMatching(/A feature does not import another feature/)]);
  });

  it('covers every folder of src/features, read from disk: a new feature needs no edit', async () => {
    for (const [i, feature] of features.entries()) {
      const other = features[(i + 1) % features.length]!;
      const errors = await boundaryErrors(
        `src/features/${feature}/example.ts`,
        `import * as other from '@/features/${other}/${firstFile(other)}';\nexport const used = other;\n`,
      );
      expect(errors, `${feature} importing ${other}`).toHaveLength(1);
    }
  });
});

/** A module of the feature to import (its first .ts file, found on disk). */
function firstFile(feature: string): string {
  const file = readdirSync(join(import.meta.dirname, 'src', 'features', feature), {
    recursive: true,
    encoding: 'utf8',
  }).find((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));
  return file!.replace(/\.ts$/, '');
}
