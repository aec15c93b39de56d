import type { components } from '@/lib/api/schema';

/** Named shortcuts to the generated deployments types. */
type S = components['schemas'];
export type Deployment = S['Deployment'];
export type DeploymentSettings = S['PatchedDeploymentSettingsRequest'];
export type DeploymentTarget = S['DeploymentTarget'];
export type UsageTotals = S['UsageTotals'];
export type Usage = S['Usage'];
export type BatchJob = S['BatchJob'];
export type PredictResult = S['PredictResult'];
export type SchemaEntry = S['SchemaEntry'];
/** What a deployment serves: a succeeded run's trained program, or a saved version. */
export type TargetChoice = { run: number } | { program_version: number };
