/**
 * The workflow bundle's entry (`workflowsPath` of the worker): every workflow type it runs.
 * Workflow code is deterministic: no I/O, no Node built-ins (docs/workflows.md "Rules of the craft").
 */
export { enrichmentJobWorkflow } from './enrichment-job';
export { webhookDeliveryWorkflow } from './webhook-delivery';
export { searchIndexBuildWorkflow } from './search-index-build';
export { activityApplyWorkflow } from './review-apply';
export { searchIndexMaintenanceWorkflow } from './search-index-maintenance';
export { catalogImportWorkflow } from './catalog-import';
export { flowRunWorkflow } from './flow-run';
export { researchArchiveIndexWorkflow } from './research-archive-index';
export { snapshotRestoreWorkflow } from './snapshot-restore';
export { bulkStageWorkflow } from './bulk-stage';
export { gridIndexWorkflow } from './grid-index';
export { feedRunWorkflow, feedScheduledRunWorkflow } from './feed-run';
