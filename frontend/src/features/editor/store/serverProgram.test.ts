import { describe, expect, it } from 'vitest';
import { locateProblems } from './serverProgram';

describe('locateProblems', () => {
  it('ties a server error to the module its path names', () => {
    const document = { program: { modules: [{ name: 'input_layer' }, { name: 'generator' }] } };
    expect(
      locateProblems(
        [
          { path: 'program.modules[1].module.config.data_model', message: 'bad schema' },
          { path: 'kind', message: 'wrong kind' },
        ],
        document,
      ),
    ).toEqual([
      {
        path: 'program.modules[1].module.config.data_model',
        message: 'bad schema',
        module: 'generator',
      },
      { path: 'kind', message: 'wrong kind', module: null },
    ]);
  });
});
