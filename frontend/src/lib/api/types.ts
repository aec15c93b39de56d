import type { components } from './schema';

/** Named shortcuts to the generated response and request types. */
type S = components['schemas'];
export type User = S['User'];
export type Program = S['Program'];
export type ProgramVersion = S['ProgramVersion'];
export type ProgramVersionSummary = S['ProgramVersionSummary'];
export type Diff = S['Diff'];
export type Dataset = S['Dataset'];
export type DatasetSummary = S['DatasetSummary'];
export type DatasetCatalogueEntry = S['DatasetCatalogueEntry'];
export type RowError = S['RowError'];
export type PreviewRow = S['PreviewRow'];
export type Provider = S['Provider'];
export type Run = S['Run'];
export type RunCreateRequest = S['RunCreateRequest'];
export type RunDetail = S['RunDetail'];
export type RunStatus = S['RunStatus'];
export type RunEvent = S['RunEvent'];
export type Compare = S['Compare'];
export type ProviderCatalogueEntry = S['ProviderCatalogueEntry'];
export type TryResult = S['TryResult'];
export type TraceEntry = S['TraceEntry'];
export type Catalogue = S['Catalogue'];
export type CatalogueEntry = S['CatalogueEntry'];
export type CatalogueParam = S['CatalogueParam'];
export type PairedComparison = S['PairedComparison'];
export type Versus = S['Versus'];
