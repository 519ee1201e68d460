import { UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ExperienceSettings } from './experience.settings';
import { ChatModel } from './models/chat-model';
import { centroid, clamp, Collections, cosine, Knowledge, TIER_RANK } from './knowledge';
import { EntryRow, ExperienceRepository, Tier, vectorOf } from './persistence/experience.repository';

const EVOLVE_LOCK = 0x45_58_50_31; // "EXP1"
const NEXT: Record<Tier, Tier | null> = { T3: 'T2', T2: 'T1', T1: 'T0', T0: null };

/** Confidence from verdict evidence: the prior counts as two observations (a Beta-like estimate). */
export function evidenceConfidence(
  row: Pick<EntryRow, 'followed' | 'ignored' | 'irrelevant' | 'meta' | 'confidence'>,
) {
  const prior = typeof row.meta?.prior === 'number' ? (row.meta.prior as number) : Number(row.confidence);
  const n = row.followed + row.ignored + row.irrelevant;
  return clamp((2 * prior + row.followed) / (2 + n));
}

/**
 * `POST /api/evolve`, one cycle, in one transaction under an advisory lock (a second replica waits and
 * then finds nothing left to do, so repeating the call changes nothing):
 * 1. archive: `ignored` ≥ `ArchiveAfterIgnores`; near-duplicates (cosine ≥ `DuplicateSimilarity`) keep the
 *    more confident entry, the other is archived and linked by `supersedes`;
 * 2. promote one tier at most per cycle when the entry has the `followed` count and confidence the next
 *    tier wants (`PromoteT2*`, `PromoteT1*`, `PromoteT0*`) and a negative share ≤ `PromoteMaxNegativeShare`;
 * 3. abstract: active lessons with ≥ `ClusterMinSize` neighbours at cosine ≥ `ClusterSimilarity` become a
 *    principle (vector: the cluster's centroid; keywords: theirs) linked by `generalizes` edges; the
 *    sources are kept (archived as `generalized`, still in the graph).
 */
@Injectable()
export class Evolve {
  private readonly logger = new Logger('ExperienceEvolve');

  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(ExperienceRepository) private readonly repository: ExperienceRepository,
    @Inject(Knowledge) private readonly knowledge: Knowledge,
    @Inject(ChatModel) private readonly model: ChatModel,
    @Inject(ExperienceSettings) private readonly settings: ExperienceSettings,
  ) {}

  async execute(): Promise<{ promoted: number; abstracted: number; archived: number; timestamp: string }> {
    const touched = new Set<string>();
    const counts = await this.uow.run(async (m) => {
      await m.query(`SELECT pg_advisory_xact_lock($1)`, [EVOLVE_LOCK]);
      const archived = await this.archive(m, touched);
      const promoted = await this.promote(m, touched);
      const abstracted = await this.abstract(m, touched);
      return { promoted, abstracted, archived };
    });
    await this.knowledge.indexed([...touched]);
    return { ...counts, timestamp: new Date().toISOString() };
  }

  private async archive(m: EntityManager, touched: Set<string>): Promise<number> {
    const s = this.settings;
    const active = await this.repository.active(m);
    const ignoredOut = active.filter((e) => e.ignored >= s.archiveAfterIgnores).map((e) => e.id);
    await this.repository.archive(m, ignoredOut, 'ignored');
    ignoredOut.forEach((id) => touched.add(id));
    let archived = ignoredOut.length;
    const gone = new Set(ignoredOut);
    const byCollection = new Map<string, EntryRow[]>();
    for (const e of active)
      if (!gone.has(e.id)) byCollection.set(e.collection, [...(byCollection.get(e.collection) ?? []), e]);
    for (const rows of byCollection.values()) {
      const vectors = rows.map((r) => vectorOf(r.embedding));
      const order = rows.map((_, i) => i).sort((a, b) => rank(rows[a]) - rank(rows[b]));
      const dropped = new Set<number>();
      for (const i of order) {
        if (dropped.has(i)) continue;
        for (const j of order) {
          if (j === i || dropped.has(j) || rows[j].kind !== rows[i].kind) continue;
          if (cosine(vectors[i], vectors[j]) < s.duplicateSimilarity) continue;
          dropped.add(j);
          await this.repository.archive(m, [rows[j].id], 'duplicate', rows[i].id);
          await this.repository.addEdge(m, rows[i].id, rows[j].id, 'supersedes');
          await this.repository.reinforce(m, rows[i].id, rows[j].text.slice(0, 300), 0.02);
          await this.repository.addEvent(m, rows[i].id, 'supersedes', rows[i].text, rows[i].tier, {
            supersedesId: rows[j].id,
            reason: 'duplicate',
          });
          touched.add(rows[j].id).add(rows[i].id);
          archived++;
        }
      }
    }
    return archived;
  }

  private async promote(m: EntityManager, touched: Set<string>): Promise<number> {
    const s = this.settings;
    const rules: Record<Tier, { followed: number; confidence: number } | null> = {
      T3: { followed: s.promoteT2Followed, confidence: s.promoteT2Confidence },
      T2: { followed: s.promoteT1Followed, confidence: s.promoteT1Confidence },
      T1: { followed: s.promoteT0Followed, confidence: s.promoteT0Confidence },
      T0: null,
    };
    let promoted = 0;
    for (const e of await this.repository.active(m)) {
      const confidence = evidenceConfidence(e);
      const rule = rules[e.tier];
      const total = e.followed + e.ignored + e.irrelevant;
      const negative = total ? (e.ignored + e.irrelevant) / total : 0;
      const to = NEXT[e.tier];
      if (
        rule &&
        to &&
        e.followed >= rule.followed &&
        confidence >= rule.confidence &&
        negative <= s.promoteMaxNegativeShare
      ) {
        await this.repository.setTier(m, e.id, to, confidence);
        await this.repository.addEvent(m, e.id, 'promoted', e.text, to, {
          from: e.tier,
          to,
          reason: `${e.followed} followed, confidence ${confidence.toFixed(2)}, negative share ${negative.toFixed(2)}`,
          verdict_distribution: { followed: e.followed, ignored: e.ignored, irrelevant: e.irrelevant },
        });
        touched.add(e.id);
        promoted++;
      } else if (total && Math.abs(confidence - Number(e.confidence)) > 0.005) {
        await this.repository.setTier(m, e.id, e.tier, confidence);
        touched.add(e.id);
      }
    }
    return promoted;
  }

  private async abstract(m: EntityManager, touched: Set<string>): Promise<number> {
    const s = this.settings;
    const lessons = (await this.repository.active(m, Collections.lessons, ['lesson'])).sort(
      (a, b) => rank(a) - rank(b),
    );
    const vectors = lessons.map((l) => vectorOf(l.embedding));
    const assigned = new Set<number>();
    let abstracted = 0;
    for (let i = 0; i < lessons.length; i++) {
      if (assigned.has(i)) continue;
      const members = [i];
      for (let j = 0; j < lessons.length; j++) {
        if (j !== i && !assigned.has(j) && cosine(vectors[i], vectors[j]) >= s.clusterSimilarity)
          members.push(j);
      }
      if (members.length < s.clusterMinSize) continue;
      members.forEach((x) => assigned.add(x));
      const sources = members.map((x) => lessons[x]);
      const text = await this.principleText(sources);
      const tier = sources.reduce<Tier>(
        (best, e) => (TIER_RANK[e.tier] < TIER_RANK[best] ? e.tier : best),
        'T3',
      );
      const confidence = sources.reduce((sum, e) => sum + Number(e.confidence), 0) / sources.length;
      const counts = new Map<string, number>();
      for (const e of sources) for (const k of e.keywords) counts.set(k, (counts.get(k) ?? 0) + 1);
      const tags = [...counts.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5)
        .map(([k]) => k);
      const workspaces = new Set(sources.map((e) => e.workspace));
      const result = await this.knowledge.add(m, {
        kind: 'principle',
        collection: Collections.principles,
        pattern: sources[0].pattern,
        text,
        tier,
        confidence,
        workspace: workspaces.size === 1 ? sources[0].workspace : null,
        toolName: sources[0].tool_name,
        tags,
        sourceExamples: sources.map((e) => e.text.slice(0, 300)).slice(0, 10),
        source: 'abstracted',
        vector: centroid(members.map((x) => vectors[x])),
        extraKeywords: [...counts.keys()],
      });
      for (const e of sources) await this.repository.addEdge(m, result.entry.id, e.id, 'generalizes');
      await this.repository.archive(
        m,
        sources.map((e) => e.id),
        'generalized',
      );
      await this.repository.addEvent(m, result.entry.id, 'abstracted', result.entry.text, result.entry.tier, {
        generalizesCount: sources.length,
        principle: result.entry.text,
      });
      sources.forEach((e) => touched.add(e.id));
      touched.add(result.entry.id);
      abstracted++;
    }
    return abstracted;
  }

  private async principleText(sources: EntryRow[]): Promise<string> {
    if (this.model.configured) {
      try {
        const answer = await this.model.complete([
          {
            role: 'system',
            content: 'Write one general principle (one or two sentences) that covers these lessons.',
          },
          { role: 'user', content: sources.map((s) => `- ${s.text}`).join('\n') },
        ]);
        if (answer.content.trim()) return answer.content.trim().slice(0, 800);
      } catch (error) {
        this.logger.warn(`model principle failed, heuristic used: ${(error as Error).message}`);
      }
    }
    const [best, ...rest] = sources;
    const also = rest
      .slice(0, 2)
      .map((s) => s.text.replace(/^When /, 'when '))
      .join('; ');
    return `Principle from ${sources.length} lessons: ${best.text}${also ? ` (also: ${also})` : ''}`.slice(
      0,
      800,
    );
  }
}

/** Ordering for "which one to keep": higher tier, then confidence, then older. */
function rank(e: EntryRow): number {
  return TIER_RANK[e.tier] * 10 - Number(e.confidence) + new Date(e.created_at).getTime() / 1e15;
}
