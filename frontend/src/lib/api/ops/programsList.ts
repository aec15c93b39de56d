import { useQuery } from '@tanstack/react-query';
import { api } from '../client';
import { unwrap } from '../errors';
import type { Program } from '../types';

export const programsKey = ['programs'] as const;

/** The user's programs, most recently changed first (the first page: 50). */
export async function listPrograms(): Promise<Program[]> {
  return unwrap(await api.GET('/api/programs/', { params: { query: { page: 1 } } })).results;
}

export function usePrograms() {
  return useQuery({ queryKey: programsKey, queryFn: listPrograms });
}
