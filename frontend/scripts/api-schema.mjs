// Generate the OpenAPI schema (drf-spectacular) and its TypeScript types (openapi-typescript).
//
//   node scripts/api-schema.mjs generate   rewrite openapi.yaml and src/lib/api/schema.d.ts
//   node scripts/api-schema.mjs check      fail when either is stale (`npm run api:check`)
//
// The schema comes from the Django code itself (manage.py spectacular, test settings), so no
// server needs to run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const frontend = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const root = resolve(frontend, '..');
const python = process.env.STUDIO_PYTHON ?? join(root, '.venv', 'bin', 'python');
const targets = {
  yaml: join(frontend, 'openapi.yaml'),
  types: join(frontend, 'src', 'lib', 'api', 'schema.d.ts'),
};

function generate(yaml, types) {
  execFileSync(python, ['manage.py', 'spectacular', '--file', yaml], {
    cwd: root,
    env: { ...process.env, DJANGO_SETTINGS_MODULE: 'studio.settings.test' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  execFileSync(join(frontend, 'node_modules', '.bin', 'openapi-typescript'), [yaml, '-o', types], {
    cwd: frontend,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

const mode = process.argv[2];
if (mode === 'generate') {
  generate(targets.yaml, targets.types);
  console.log('wrote openapi.yaml and src/lib/api/schema.d.ts');
} else if (mode === 'check') {
  const dir = mkdtempSync(join(tmpdir(), 'studio-api-'));
  try {
    const fresh = { yaml: join(dir, 'openapi.yaml'), types: join(dir, 'schema.d.ts') };
    generate(fresh.yaml, fresh.types);
    const stale = Object.keys(targets).filter(
      (key) => readFileSync(fresh[key], 'utf8') !== readFileSync(targets[key], 'utf8'),
    );
    if (stale.length) {
      console.error(
        `stale: ${stale.map((k) => targets[k].slice(frontend.length + 1)).join(', ')}; ` +
          'run `npm run api:generate` and commit the result',
      );
      process.exit(1);
    }
    console.log('openapi.yaml and schema.d.ts match the API');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else {
  console.error('usage: node scripts/api-schema.mjs generate|check');
  process.exit(2);
}
