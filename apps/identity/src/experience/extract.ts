import { UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { ChatModel } from './models/chat-model';
import { Collections, Knowledge } from './knowledge';
import { EntryRow, ExperienceRepository } from './persistence/experience.repository';
import { FILE_STORE, FileStore } from './stores/file-store';
import { experienceError } from './experience-errors';

export interface ExtractInput {
  transcript: string;
  sessionId: string;
  agent: string;
  workspace: string;
}

export interface LessonView {
  id: string;
  pattern: string;
  confidence: number;
  tier: string;
  text: string;
}

interface Draft {
  pattern: string;
  text: string;
  confidence: number;
  toolName: string | null;
}

const TOOLS =
  /\b(Bash|Edit|MultiEdit|Write|Read|Grep|Glob|WebFetch|WebSearch|NotebookEdit|Task|shell|apply_patch)\b/;
const ERROR =
  /\b(error|errors|failed|fails|failure|exception|traceback|denied|cannot|can't|not found|no such|refused|timed? ?out|ENOENT|EACCES|EADDRINUSE|panic|fatal|exit code [1-9])\b/i;
const FIX =
  /\b(fix|fixed|instead|should|must|use|need to|needs|resolved|works|worked|solution|the cause|because|remember|avoid|don't|do not|never|always|make sure|run|create|install|add|set|enable|pass|move|convert|wait|restrict|send|copy|raise|track|remove|check)\b/i;
const EXPLICIT = /^\s*(?:[-*]\s*)?(?:lesson|remember|note to self|learned|takeaway|rule)\s*[:-]\s*(.+)$/i;
/** A tool call line: `[Bash] npm test`, `Bash: npm test`, `$ npm test`. */
const CALL =
  /^(?:\[(\w+)\]\s*(.+)|(Bash|Edit|Write|Read|Grep|Glob|MultiEdit|WebFetch)\s*[:>]\s*(.+)|[$>]\s+(.+))$/;
/** A line by the agent (its explanation of the fix, when it follows an error). */
const AGENT = /^(assistant|agent|claude|ai)\s*:/i;

/** The situation a lesson is about: its leading "when/if/before/after …" clause, else its first sentence. */
export function situationOf(text: string): string {
  const clause = text.match(/^\s*((?:when|if|before|after|while|whenever)\b[^,;:]*)/i);
  return (clause ? clause[1] : text.split(/[.;:]/)[0]).trim().slice(0, 200);
}

/**
 * The heuristic reader: explicit "Lesson:" lines, and each error followed by the fix that resolved it
 * (the agent's next line, or a line with fix-like words). The situation is the failing tool call and
 * its error, so a later call that repeats the command finds the lesson.
 */
export function heuristicLessons(transcript: string): Draft[] {
  const lines = transcript
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const drafts: Draft[] = [];
  let lastTool: string | null = null;
  let lastCall: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const call = line.match(CALL);
    if (call) {
      lastTool = call[1] ?? call[3] ?? 'Bash';
      lastCall = (call[2] ?? call[4] ?? call[5] ?? '').slice(0, 200);
      continue;
    }
    const tool = line.match(TOOLS)?.[1] ?? null;
    if (tool) lastTool = tool;
    const explicit = line.match(EXPLICIT);
    if (explicit) {
      const text = explicit[1].trim();
      drafts.push({
        pattern: situationOf(text),
        text: text.slice(0, 600),
        confidence: 0.6,
        toolName: lastTool,
      });
      continue;
    }
    if (AGENT.test(line) || !ERROR.test(line)) continue;
    const next = lines.slice(i + 1, i + 6);
    const fix =
      next.find((l) => AGENT.test(l)) ?? next.find((l) => FIX.test(l) && !ERROR.test(l.slice(0, 12)));
    if (!fix) continue;
    // the last error before the fix is the one it answers (a warning may come first)
    const laterError = next.findIndex((l) => !AGENT.test(l) && ERROR.test(l));
    if (laterError >= 0 && laterError < next.indexOf(fix)) continue;
    const error = line
      .replace(/^(error|stderr|output|warning)\s*[:>]\s*/i, '')
      .replace(/[.\s]+$/, '')
      .slice(0, 200);
    const advice = fix.replace(/^(assistant|agent|claude|ai|fix|solution)\s*[:>]\s*/i, '').slice(0, 400);
    const situation = lastCall ? `${lastCall} fails with ${error}` : error;
    drafts.push({
      pattern: situation.slice(0, 300),
      text: `When ${situation}: ${advice}`.slice(0, 700),
      confidence: 0.5,
      toolName: lastTool,
    });
  }
  return drafts;
}

/**
 * `POST /api/extract`: lessons from a transcript, each starting in `T3`. The transcript is kept in the
 * file store (`transcripts/<workspace>/<session>.txt`). With a chat endpoint configured the model reads
 * the transcript (JSON answer); otherwise, or when the model fails, the heuristic reader does. Each
 * lesson goes through `Knowledge.add`: near-duplicates merge, contradictions and refinements supersede.
 */
@Injectable()
export class Extract {
  private readonly logger = new Logger('ExperienceExtract');

  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(ExperienceRepository) private readonly repository: ExperienceRepository,
    @Inject(Knowledge) private readonly knowledge: Knowledge,
    @Inject(ChatModel) private readonly model: ChatModel,
    @Inject(FILE_STORE) private readonly files: FileStore,
  ) {}

  async execute(input: ExtractInput): Promise<{ lessons: LessonView[]; count: number; extractor: string }> {
    const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100) || '_';
    const digest = createHash('sha256').update(input.transcript).digest('hex').slice(0, 12);
    await this.files
      .put(`transcripts/${safe(input.workspace)}/${safe(input.sessionId)}-${digest}.txt`, input.transcript)
      .catch((error: Error) => {
        throw experienceError.fileStoreDown(error.message);
      });
    let extractor = 'heuristic';
    let drafts: Draft[] | null = null;
    if (this.model.configured) {
      drafts = await this.byModel(input.transcript).catch((error: Error) => {
        this.logger.warn(`model extraction failed, heuristic used: ${error.message}`);
        return null;
      });
      if (drafts) extractor = 'model';
    }
    drafts ??= heuristicLessons(input.transcript);
    const written: EntryRow[] = [];
    const ids = new Set<string>();
    await this.uow.run(async (m) => {
      for (const d of drafts!.slice(0, 50)) {
        const result = await this.knowledge.add(m, {
          kind: 'lesson',
          collection: Collections.lessons,
          pattern: d.pattern,
          text: d.text,
          confidence: d.confidence,
          workspace: input.workspace,
          toolName: d.toolName,
          agent: input.agent,
          sessionId: input.sessionId,
          sourceExamples: [`${input.sessionId}: ${d.pattern}`.slice(0, 300)],
          source: 'extracted',
        });
        if (result.outcome !== 'merged') {
          await this.repository.addEvent(
            m,
            result.entry.id,
            'extracted',
            result.entry.text,
            result.entry.tier,
            {
              sessionId: input.sessionId,
              agent: input.agent,
              workspace: input.workspace,
            },
          );
        }
        if (result.supersededId) ids.add(result.supersededId);
        if (!written.some((w) => w.id === result.entry.id)) written.push(result.entry);
        ids.add(result.entry.id);
      }
    });
    await this.knowledge.indexed([...ids]);
    const lessons = written.map((e) => ({
      id: e.id,
      pattern: e.pattern,
      confidence: Number(e.confidence),
      tier: e.tier,
      text: e.text,
    }));
    return { lessons, count: lessons.length, extractor };
  }

  private async byModel(transcript: string): Promise<Draft[] | null> {
    const answer = await this.model.completeJson<{
      lessons?: { pattern?: string; text?: string; confidence?: number; toolName?: string }[];
    }>([
      {
        role: 'system',
        content:
          'Extract reusable lessons from a coding agent transcript: mistakes and the fix that worked. Answer JSON ' +
          'only: {"lessons":[{"pattern":"situation","text":"advice","confidence":0.5,"toolName":"Bash"}]}.',
      },
      { role: 'user', content: transcript.slice(0, 60_000) },
    ]);
    const lessons = (answer?.lessons ?? []).filter(
      (l) => typeof l.pattern === 'string' && typeof l.text === 'string' && l.text.trim(),
    );
    if (!answer) return null;
    return lessons.map((l) => ({
      pattern: l.pattern!.slice(0, 200),
      text: l.text!.slice(0, 600),
      confidence: typeof l.confidence === 'number' ? l.confidence : 0.5,
      toolName: typeof l.toolName === 'string' ? l.toolName.slice(0, 100) : null,
    }));
  }
}
