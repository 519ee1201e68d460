import type { DependencyStatus, HealthIndicator } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { FILE_STORE, FileStore } from './stores/file-store';
import { VectorStore } from './stores/vector-store';

/** `/health`'s `vectordb: { status }` (`ok` or `unreachable`); a down store makes the report 503 `degraded`. */
@Injectable()
export class VectorDbHealth implements HealthIndicator {
  readonly name = 'vectordb';
  constructor(@Inject(VectorStore) private readonly vectors: VectorStore) {}
  async check(): Promise<DependencyStatus> {
    const r = await this.vectors.ping();
    return {
      status: r.ok ? 'up' : 'down',
      engine: this.vectors.kind,
      ...(r.detail ? { detail: r.detail } : {}),
    };
  }
  topLevel(result: DependencyStatus) {
    return { status: result?.status === 'up' ? 'ok' : 'unreachable', engine: this.vectors.kind };
  }
}

/** `/health`'s `fileStore: { status }`. */
@Injectable()
export class FileStoreHealth implements HealthIndicator {
  readonly name = 'fileStore';
  constructor(@Inject(FILE_STORE) private readonly files: FileStore) {}
  async check(): Promise<DependencyStatus> {
    const r = await this.files.ping();
    return { status: r.ok ? 'up' : 'down', kind: this.files.kind, ...(r.detail ? { detail: r.detail } : {}) };
  }
  topLevel(result: DependencyStatus) {
    return { status: result?.status === 'up' ? 'ok' : 'unreachable' };
  }
}
