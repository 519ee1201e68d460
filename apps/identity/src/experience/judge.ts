import { AppError, RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ExperienceErrors } from './experience-errors';
import { ExperienceSettings } from './experience.settings';
import { suggestionRefs, toolCallText, contextString } from './intercept';
import { ChatModel } from './models/chat-model';
import { keywords, keywordScore } from './models/embedding';
import { Knowledge } from './knowledge';
import { EntryRow, ExperienceRepository, JudgeJobRow, Verdict } from './persistence/experience.repository';

export interface PostToolInput {
  toolName: string;
  toolInput: Record<string, unknown>;
  outcome: { success: boolean; error: string | null; duration_ms: number };
  suggestions?: string | null;
  context?: Record<string, unknown>;
}

interface PendingJob {
  id: string;
  payload: Record<string, unknown>;
  done: (error?: Error) => void;
}

/**
 * `POST /api/posttool`: the outcome is queued durably (a row) before the 202; the judge decides later.
 * Group commit: calls arriving together are written in one transaction (up to 200 rows, or what arrived
 * within 2 ms), and each answers only after that transaction committed — a 202 always means stored.
 */
@Injectable()
export class PostTool {
  private readonly pending = new Map<string, PendingJob[]>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(ExperienceRepository) private readonly repository: ExperienceRepository,
  ) {}

  async execute(input: PostToolInput): Promise<{ judgeJobId: string }> {
    const id = randomUUID();
    const tenant = RequestContext.tenantId();
    await new Promise<void>((resolve, reject) => {
      const list = this.pending.get(tenant) ?? [];
      list.push({ id, payload: { ...input }, done: (error) => (error ? reject(error) : resolve()) });
      this.pending.set(tenant, list);
      if (list.length >= 200) void this.flush();
      else this.timer ??= setTimeout(() => void this.flush(), 2);
    });
    return { judgeJobId: id };
  }

  private async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batches = [...this.pending.entries()];
    this.pending.clear();
    await Promise.all(
      batches.map(async ([tenantId, jobs]) => {
        try {
          await this.uow.run((m) => this.repository.enqueueJobs(m, jobs), { tenantId });
          for (const job of jobs) job.done();
        } catch (error) {
          for (const job of jobs) job.done(error as Error);
        }
      }),
    );
  }
}

/** `POST /api/feedback`: a verdict on one suggestion, from the text's `pointId` and `collection`. */
@Injectable()
export class Feedback {
  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(ExperienceRepository) private readonly repository: ExperienceRepository,
    @Inject(Knowledge) private readonly knowledge: Knowledge,
  ) {}

  async execute(input: { pointId: string; collection: string; verdict: Verdict }) {
    const row = await this.uow.run((m) =>
      this.repository.recordVerdict(m, input.pointId, input.collection, input.verdict, 'feedback', null),
    );
    if (!row) {
      throw AppError.notFound(
        ExperienceErrors.EntryNotFound,
        `No entry '${input.pointId}' in collection '${input.collection}'`,
      );
    }
    await this.knowledge.indexed([row.id]);
    return {
      recorded: true as const,
      verdict: input.verdict,
      pointId: input.pointId,
      collection: input.collection,
    };
  }
}

/**
 * The verdict judge: a background worker on every replica (unless `Experience:JudgeEnabled` is false)
 * that takes queued posttool jobs with `FOR UPDATE SKIP LOCKED` (two replicas never judge one job twice;
 * a job of a crashed process is still queued and is judged after the restart), and records a verdict
 * for each suggestion the call received:
 * - with a chat endpoint configured, the model decides (JSON answer), falling back to the heuristic;
 * - heuristic: the call failed with an error that matches the lesson's situation → `ignored` (the
 *   mistake the lesson warns about happened); it succeeded and the call is about the lesson (a third of
 *   the call's words in the lesson) → `followed`;
 *   otherwise → `irrelevant`.
 */
@Injectable()
export class Judge implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ExperienceJudge');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(ExperienceRepository) private readonly repository: ExperienceRepository,
    @Inject(ChatModel) private readonly model: ChatModel,
    @Inject(Knowledge) private readonly knowledge: Knowledge,
    @Inject(ExperienceSettings) private readonly settings: ExperienceSettings,
  ) {}

  onApplicationBootstrap(): void {
    if (this.settings.judgeEnabled) this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule() {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.drain()
        .then(() => undefined)
        .catch((error: Error) => this.logger.warn(`judge cycle failed: ${error.message}`))
        .finally(() => {
          this.running = null;
          this.schedule();
        });
    }, this.settings.judgeIntervalMs);
    this.timer.unref();
  }

  /** Judges queued jobs until the queue is empty (or the service stops); returns how many. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      if (this.stopped) return total;
      const tenants = await this.uow.run((m) => this.repository.tenantsWithQueuedJobs(m), {
        acrossTenants: true,
      });
      let done = 0;
      for (const tenantId of tenants) done += await this.judgeBatch(tenantId);
      total += done;
      if (!done) return total;
    }
  }

  /**
   * One batch of a tenant's queued jobs in one transaction: the suggested entries of every job read at
   * once, each job judged, then every verdict and every completion written in a few statements.
   */
  private async judgeBatch(tenantId: string): Promise<number> {
    const touched = new Set<string>();
    const count = await this.uow.run(
      async (m) => {
        const jobs = await this.repository.claimJobs(m, this.settings.judgeBatchSize);
        const refs = jobs.map((job) => {
          const input = job.payload as unknown as PostToolInput;
          return suggestionRefs(typeof input.suggestions === 'string' ? input.suggestions : null);
        });
        const entries = new Map(
          (await this.repository.byIds(m, [...new Set(refs.flat().map((r) => r.pointId))])).map((e) => [
            e.id,
            e,
          ]),
        );
        const verdicts: Parameters<ExperienceRepository['recordVerdicts']>[1] = [];
        const judged: { id: string; result: Record<string, unknown>; judge: string }[] = [];
        for (const [i, job] of jobs.entries()) {
          const mine = [...new Set(refs[i].map((r) => r.pointId))]
            .map((id) => entries.get(id))
            .filter(
              (e): e is EntryRow =>
                !!e && refs[i].some((r) => r.pointId === e.id && r.collection === e.collection),
            );
          const result = await this.judge(job, mine);
          const sessionId = contextString(
            (job.payload as unknown as PostToolInput).context,
            'sessionId',
            'session_id',
          );
          for (const v of result.verdicts) {
            touched.add(v.pointId);
            verdicts.push({
              id: v.pointId,
              collection: v.collection,
              verdict: v.verdict,
              origin: 'judge',
              sessionId,
            });
          }
          judged.push({ id: job.id, result, judge: result.judge });
        }
        await this.repository.recordVerdicts(m, verdicts);
        await this.repository.completeJobs(m, judged);
        return jobs.length;
      },
      { tenantId },
    );
    await this.knowledge.indexed([...touched]);
    return count;
  }

  /** The verdicts of one job on the entries its suggestion text referenced (the model's, or the heuristic's). */
  private async judge(job: JudgeJobRow, entries: EntryRow[]) {
    const input = job.payload as unknown as PostToolInput;
    let judge = 'heuristic';
    let decided: Map<string, Verdict> | null = null;
    if (entries.length && this.model.configured) {
      decided = await this.byModel(input, entries).catch((error: Error) => {
        this.logger.warn(`model judge failed, heuristic used: ${error.message}`);
        return null;
      });
      if (decided) judge = 'model';
    }
    const verdicts = entries.map((entry) => ({
      pointId: entry.id,
      collection: entry.collection,
      verdict: decided?.get(entry.id) ?? heuristicVerdict(input, entry),
    }));
    const avoided = input.outcome?.success === true && verdicts.some((v) => v.verdict === 'followed');
    return { verdicts, avoided, judge };
  }

  private async byModel(input: PostToolInput, entries: EntryRow[]): Promise<Map<string, Verdict> | null> {
    const answer = await this.model.completeJson<{ verdicts?: { pointId?: string; verdict?: string }[] }>([
      {
        role: 'system',
        content:
          'You judge whether an agent followed lessons suggested before a tool call. Answer JSON only: ' +
          '{"verdicts":[{"pointId":"…","verdict":"followed|ignored|irrelevant"}]}.',
      },
      {
        role: 'user',
        content: JSON.stringify({
          toolName: input.toolName,
          toolInput: input.toolInput,
          outcome: input.outcome,
          lessons: entries.map((e) => ({ pointId: e.id, lesson: e.text })),
        }),
      },
    ]);
    const out = new Map<string, Verdict>();
    for (const v of answer?.verdicts ?? []) {
      if (v.pointId && (v.verdict === 'followed' || v.verdict === 'ignored' || v.verdict === 'irrelevant')) {
        out.set(v.pointId, v.verdict);
      }
    }
    return out.size ? out : null;
  }
}

/** The heuristic verdict of one suggested entry for one tool outcome. */
export function heuristicVerdict(input: PostToolInput, entry: EntryRow): Verdict {
  const callWords = keywords(toolCallText(input));
  const entryWords = new Set(entry.keywords);
  // about this call: a third of the call's words are in the lesson
  const aboutCall = keywordScore(callWords, entryWords) >= 0.34;
  if (input.outcome?.success === false) {
    const errorWords = keywords(input.outcome.error ?? '');
    const patternWords = new Set(keywords(`${entry.pattern} ${entry.text}`));
    return errorWords.length && keywordScore(errorWords, patternWords) >= 0.25 ? 'ignored' : 'irrelevant';
  }
  return aboutCall ? 'followed' : 'irrelevant';
}
