import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../client';
import { unwrap } from '../errors';
import type { Page } from '../pagination';
import type { Program } from '../types';

export const programsKey = ['programs'] as const;

/** The user's programs, most recently changed first (the first page: 50). */
export async function listPrograms(): Promise<Program[]> {
  return unwrap(await api.GET('/api/programs/', { params: { query: { page: 1 } } })).results;
}

export function usePrograms() {
  return useQuery({ queryKey: programsKey, queryFn: listPrograms });
}

/** One page of the list (50 a page), with the API's `count`, `next` and `previous`. */
export async function listProgramsPage(page: number): Promise<Page<Program>> {
  return unwrap(await api.GET('/api/programs/', { params: { query: { page } } }));
}

export function useProgramsPage(page: number) {
  return useQuery({
    queryKey: [...programsKey, 'page', page],
    queryFn: () => listProgramsPage(page),
    placeholderData: keepPreviousData,
  });
}
