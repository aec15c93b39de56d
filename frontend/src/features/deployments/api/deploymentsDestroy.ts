import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { ApiError } from '@/lib/api/errors';
import { deploymentsKey } from './deploymentsList';

/** Stop serving: the deployment, its history, usage and batch results are deleted. */
export async function deleteDeployment(name: string): Promise<void> {
  const result = await api.DELETE('/api/deployments/{name}/', { params: { path: { name } } });
  if (!result.response.ok) throw new ApiError(result.response.status, result.error);
}

export function useDeleteDeployment() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteDeployment,
    onSuccess: () => client.invalidateQueries({ queryKey: deploymentsKey }),
  });
}
