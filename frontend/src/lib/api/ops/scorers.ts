import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { Page } from '@/lib/api/pagination';
import type { components } from '@/lib/api/schema';

export type Scorer = components['schemas']['Scorer'];
export type ScorerKind = components['schemas']['ScorerKindEnum'];
export type ScorerVersion = components['schemas']['ScorerVersion'];
export type ScorerVersionSummary = components['schemas']['ScorerVersionSummary'];
export type TryRequest = components['schemas']['ScorerTryRequestRequest'];
export type TryResult = components['schemas']['ScorerTryResult'];
export type TryRow = components['schemas']['ScorerTryRow'];

export const scorersKey = ['scorers'] as const;
const scorerKey = (id: number) => ['scorers', id] as const;

/** The user's code rewards and metrics, most recently changed first (one page of 50). */
export async function listScorers(page = 1): Promise<Page<Scorer>> {
  return unwrap(await api.GET('/api/scorers/', { params: { query: { page } } }));
}

export function useScorersPage(page: number) {
  return useQuery({
    queryKey: [...scorersKey, 'page', page],
    queryFn: () => listScorers(page),
    placeholderData: keepPreviousData,
  });
}

/** The first page, for pickers (the run form). */
export function useScorers() {
  return useQuery({
    queryKey: [...scorersKey, 'page', 1],
    queryFn: () => listScorers(1),
    select: (data) => data.results,
  });
}

export function useScorer(id: number | null) {
  return useQuery({
    queryKey: scorerKey(id ?? 0),
    queryFn: async () =>
      unwrap(await api.GET('/api/scorers/{id}/', { params: { path: { id: id as number } } })),
    enabled: id !== null,
  });
}

export function useScorerVersions(id: number | null) {
  return useQuery({
    queryKey: [...scorerKey(id ?? 0), 'versions'],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/scorers/{id}/versions/', {
          params: { path: { id: id as number }, query: { page: 1 } },
        }),
      ).results,
    enabled: id !== null,
  });
}

export function useScorerVersion(id: number | null, number: number | null) {
  return useQuery({
    queryKey: [...scorerKey(id ?? 0), 'versions', number ?? 0],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/scorers/{id}/versions/{number}/', {
          params: { path: { id: id as number, number: number as number } },
        }),
      ),
    enabled: id !== null && number !== null,
  });
}

/** The source a new reward or metric starts from, per kind. */
export function useScorerTemplates() {
  return useQuery({
    queryKey: [...scorersKey, 'templates'],
    queryFn: async () => unwrap(await api.GET('/api/scorers/templates/')),
    staleTime: Infinity,
  });
}

export type NewScorer = {
  name: string;
  kind: ScorerKind;
  source: string;
  description?: string;
  message?: string;
};

export function useCreateScorer() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: NewScorer) =>
      unwrap(await api.POST('/api/scorers/', { body: { description: '', message: '', ...body } })),
    onSuccess: () => client.invalidateQueries({ queryKey: scorersKey }),
  });
}

/** Save the editor's source as version n+1, with its message. */
export function useSaveVersion(id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: { source: string; message: string }) =>
      unwrap(await api.POST('/api/scorers/{id}/versions/', { params: { path: { id } }, body })),
    onSuccess: () => client.invalidateQueries({ queryKey: scorersKey }),
  });
}

export function useUpdateScorer(id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: { name?: string; description?: string }) =>
      unwrap(await api.PATCH('/api/scorers/{id}/', { params: { path: { id } }, body })),
    onSuccess: () => client.invalidateQueries({ queryKey: scorersKey }),
  });
}

export function useDeleteScorer() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (id: number) =>
      unwrap(await api.DELETE('/api/scorers/{id}/', { params: { path: { id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: scorersKey }),
  });
}

/** Run a version (or unsaved source) on dataset rows in the sandbox. */
export function useTryScorer(id: number) {
  return useMutation({
    mutationFn: async (body: TryRequest) =>
      unwrap(await api.POST('/api/scorers/{id}/try/', { params: { path: { id } }, body })),
  });
}

/** Import an exported `.reward.json` file. */
export function useImportScorer() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (file: File) =>
      unwrap(
        await api.POST('/api/scorers/import/', {
          body: {} as never,
          bodySerializer: () => {
            const form = new FormData();
            form.append('file', file);
            return form;
          },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: scorersKey }),
  });
}
