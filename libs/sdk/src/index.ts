export { OpenWopClient, type ClientOptions, type CreateRunRequest, type CreateRunResponse, type PollResponse, type RunSnapshotBody } from './client';
export { OpenWopApiError } from './errors';
