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
export type PredictionLog = S['PredictionLog'];
export type PredictionLogPage = S['PredictionLogPage'];
export type PredictionReview = S['PatchedPredictionReviewRequest'];
export type ToDatasetRequest = S['ToDatasetRequest'];
export type ToDatasetResult = S['ToDatasetResult'];
/** The prediction list's filters, as its query carries them (absent: no filter). */
export type PredictionFilters = {
  since?: string;
  until?: string;
  target?: number;
  failed?: boolean;
  verdict?: 'right' | 'wrong' | 'none';
  output_field?: string;
  output_value?: string;
};
