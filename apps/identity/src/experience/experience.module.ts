import { Global, Module } from '@nestjs/common';
import { Brain, PilContext, Principles } from './assist';
import { Evolve } from './evolve';
import { ExperienceController } from './experience.controller';
import { ExperienceDoor, ExperienceGuard } from './experience.guard';
import { ExperienceHotRoutes } from './experience.hot-routes';
import { FileStoreHealth, VectorDbHealth } from './experience-health';
import { ExperienceSettings } from './experience.settings';
import { Extract } from './extract';
import { Insights } from './insights';
import { Intercept, Ranker } from './intercept';
import { Feedback, Judge, PostTool } from './judge';
import { EMBEDDING_PROVIDER, embeddingProviderFor, Knowledge } from './knowledge';
import { ChatModel } from './models/chat-model';
import { ExperienceRepository } from './persistence/experience.repository';
import { Routing } from './routing';
import { FILE_STORE, LocalDirectoryFileStore } from './stores/file-store';
import { VectorStore } from './stores/vector-store';

/**
 * The experience service's stores, global so that `/health` (the platform's module) can report them
 * through `VectorDbHealth` and `FileStoreHealth`.
 */
@Global()
@Module({
  providers: [ExperienceRepository, VectorStore, { provide: FILE_STORE, useClass: LocalDirectoryFileStore }],
  exports: [ExperienceRepository, VectorStore, FILE_STORE],
})
export class ExperienceStoresModule {}

/** The experience service (spec 3 part C): a lesson store queried before and after every tool call. */
@Module({
  imports: [ExperienceStoresModule],
  providers: [
    { provide: EMBEDDING_PROVIDER, inject: [ExperienceSettings], useFactory: embeddingProviderFor },
    ChatModel,
    Knowledge,
    Ranker,
    Intercept,
    PostTool,
    Feedback,
    Judge,
    Extract,
    Evolve,
    Insights,
    Routing,
    Brain,
    Principles,
    PilContext,
    ExperienceDoor,
    ExperienceGuard,
    ExperienceHotRoutes,
  ],
  controllers: [ExperienceController],
  exports: [Judge, Knowledge, Intercept],
})
export class ExperienceModule {}

export const EXPERIENCE_HEALTH_INDICATORS = [VectorDbHealth, FileStoreHealth];
