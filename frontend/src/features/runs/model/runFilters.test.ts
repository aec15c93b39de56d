import { describe, expect, it } from 'vitest';
import { filtersFromParams, withFilter } from './runFilters';

describe('run filters in the URL', () => {
  it('reads the known filters and drops malformed ones', () => {
    const params = new URLSearchParams(
      'program=3&dataset=x&optimizer=%20omega%20&state=running&page=2',
    );
    expect(filtersFromParams(params)).toEqual({ program: 3, optimizer: 'omega', state: 'running' });
    expect(filtersFromParams(new URLSearchParams('program=-1&state=lost'))).toEqual({});
  });

  it('sets or clears one filter and starts again from the first page', () => {
    const params = new URLSearchParams('program=3&page=4');
    expect(withFilter(params, 'optimizer', 'omega').toString()).toBe('program=3&optimizer=omega');
    expect(withFilter(params, 'program', undefined).toString()).toBe('');
    expect(withFilter(params, 'dataset', 7).toString()).toBe('program=3&dataset=7');
  });
});
