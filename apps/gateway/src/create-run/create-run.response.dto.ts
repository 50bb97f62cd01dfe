/** Body of `201 Created` from `POST /v1/runs` (documented as `CreateRunResponse` in the OpenAPI components). */
export interface CreateRunResponseDto {
  readonly runId: string;
  readonly status: string;
  readonly eventsUrl: string;
  readonly statusUrl: string;
}
