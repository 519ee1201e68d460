import { AppError } from '@arbiter/platform';

/** Stable `code` values of the experience service (in its `{ error, code, timestamp }` body). */
export const ExperienceErrors = {
  /** No `Authorization: Bearer` header while `serverAuthToken` is configured (401). */
  TokenMissing: 'EXPERIENCE_TOKEN_MISSING',
  /** A bearer token that is not the configured `serverAuthToken` (401). */
  TokenInvalid: 'EXPERIENCE_TOKEN_INVALID',
  /** More requests than allowed per minute for the client (429 with `Retry-After`). */
  RateLimited: 'RATE_LIMITED',
  /** The vector store does not answer (503). */
  VectorDbUnreachable: 'VECTORDB_UNREACHABLE',
  /** The file store does not answer (503). */
  FileStoreUnreachable: 'FILESTORE_UNREACHABLE',
  /** No entry with this id in this collection (404). */
  EntryNotFound: 'ENTRY_NOT_FOUND',
  /** A collection name that does not exist (404). */
  CollectionNotFound: 'COLLECTION_NOT_FOUND',
  /** The embedding provider answered vectors of another dimension than the collection's (500/503). */
  DimensionMismatch: 'EMBEDDING_DIMENSION_MISMATCH',
  /** The embedding provider or chat endpoint failed (503). */
  ModelUnavailable: 'MODEL_UNAVAILABLE',
  /** `brain` called while no chat endpoint is configured (503). */
  ModelNotConfigured: 'MODEL_NOT_CONFIGURED',
  /** Unknown graph edge type in `types` (400). */
  EdgeTypeInvalid: 'EDGE_TYPE_INVALID',
  /** `share` with an unsupported `format` (400). */
  FormatInvalid: 'FORMAT_INVALID',
  /** A transcript from which no lesson could be read (never an error: count 0) — reserved. */
  TranscriptEmpty: 'TRANSCRIPT_EMPTY',
} as const;

export const experienceError = {
  vectorDbDown: (detail: string) =>
    new AppError(503, ExperienceErrors.VectorDbUnreachable, `Vector store unreachable: ${detail}`),
  fileStoreDown: (detail: string) =>
    new AppError(503, ExperienceErrors.FileStoreUnreachable, `File store unreachable: ${detail}`),
  modelDown: (detail: string) =>
    new AppError(503, ExperienceErrors.ModelUnavailable, `Model endpoint failed: ${detail}`),
  entryNotFound: (id: string) => AppError.notFound(ExperienceErrors.EntryNotFound, `No entry '${id}'`),
};
