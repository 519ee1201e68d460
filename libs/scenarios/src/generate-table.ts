/**
 * The deterministic scenario generator for a decision table (no AI): for every row an input all its
 * conditions accept; for every condition its boundary values and equivalence classes with the row's other
 * conditions kept true (the MC/DC pairs of rows with several conditions); a missing and a null value per
 * column; and cross-row combinations chosen by pairwise coverage. Duplicates are removed by the canonical
 * hash of the input facts. The expected behaviour of each scenario is what the table as written does for
 * it (which rows match, what it outputs, or which evaluation error it raises), computed by the engine the
 * runtime uses. The same seed gives the same scenarios.
 */
import { EvaluationError, type EvaluationResult } from '@arbiter/rule-engine';
import { canonicalJson, hashFacts } from './canonical';
import { pairwise } from './pairwise';
import { shiftValue } from './literals';
import { Prng } from './prng';
import { TableModel, buildTableModel, cellAccepts, isTableModel } from './table-model';
import { ExpectedBehavior, GeneratedPlan, GeneratedScenario, ScenarioOrigin, ScenarioType } from './types';

export interface TableGenerationOptions {
  /** the table's code or id, recorded as the plan's SeedRuleCode */
  seedRuleCode: string;
  seed?: number;
  /** stop adding scenarios past this many (default 50,000) */
  maxScenarios?: number;
  /** values per column taken into the pairwise combinations (default 6) */
  pairwiseValuesPerColumn?: number;
  /** clock for GenerationDuration (default performance.now) */
  now?: () => number;
}

type Facts = Record<string, unknown>;

function readPath(facts: Facts, path: string[]): unknown {
  let o: unknown = facts;
  for (const k of path) {
    if (!o || typeof o !== 'object' || !Object.prototype.hasOwnProperty.call(o, k)) return undefined;
    o = (o as Facts)[k];
  }
  return o;
}

/** sets a nested fact, copying the objects on the way (facts are shared between scenarios) */
function writePath(facts: Facts, path: string[], value: unknown): void {
  let o = facts;
  for (let i = 0; i < path.length - 1; i++) {
    const next = o[path[i]];
    o[path[i]] = next && typeof next === 'object' && !Array.isArray(next) ? { ...(next as Facts) } : {};
    o = o[path[i]] as Facts;
  }
  o[path[path.length - 1]] = value;
}

const FALLBACK: Record<string, unknown> = {
  string: 'x',
  number: 0,
  boolean: true,
  date: '2024-01-01',
  time: '12:00:00',
  dateTime: '2024-01-01T00:00:00Z',
  duration: 'P1D',
  yearMonthDuration: 'P1Y0M',
  any: 'x',
};

/** Expected behaviour: what the engine does for these facts on the table as written. */
export function expectationFor(
  model: TableModel,
  facts: Facts,
  targetRowId: string | null,
  why: string,
): ExpectedBehavior {
  let result: EvaluationResult;
  try {
    result = model.compiled.evaluate(facts);
  } catch (e) {
    if (e instanceof EvaluationError)
      return {
        matchedRows: [],
        outputs: null,
        errorCode: e.code,
        targetRowId,
        description: `${why}: the evaluation is refused with ${e.code}`,
      };
    throw e;
  }
  const rows = result.matchedRows;
  const what =
    rows.length === 0 ? 'no row matches' : `row${rows.length > 1 ? 's' : ''} ${rows.join(', ')} must match`;
  return {
    matchedRows: rows,
    outputs: result.outputValues,
    errorCode: null,
    targetRowId,
    description: `${why}: ${what}, output ${canonicalJson(result.outputValues)}`,
  };
}

export function generateTableScenarios(
  definition: unknown | TableModel,
  options: TableGenerationOptions,
): GeneratedPlan {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const seed = (options.seed ?? 1) >>> 0;
  const prng = new Prng(seed);
  const max = options.maxScenarios ?? 50_000;
  const model = isTableModel(definition) ? definition : buildTableModel(definition);
  const { columns, cells, rowIds } = model;

  // the domain of each column: every probe of every cell, in first-seen order (distinct)
  const domains = columns.map(() => new Map<string, unknown>());
  for (const row of cells)
    row.forEach((cell, c) => {
      for (const p of cell.probes) {
        const key = canonicalJson(p.value);
        if (!domains[c].has(key)) domains[c].set(key, p.value);
      }
    });
  const domainValues = domains.map((d, c) => {
    const values = [...d.values()].filter((v) => v !== null);
    return values.length ? values : [FALLBACK[columns[c].type] ?? 'x'];
  });

  const seen = new Set<string>();
  const scenarios: GeneratedScenario[] = [];
  let candidates = 0;
  const add = (type: ScenarioType, name: string, facts: Facts, origin: ScenarioOrigin, why: string) => {
    candidates++;
    if (scenarios.length >= max) return;
    const hash = hashFacts(facts);
    if (seen.has(hash)) return;
    seen.add(hash);
    const scope = type === 'Pairwise' ? 'CrossRule' : 'Rule';
    scenarios.push({
      scenarioName: name,
      type,
      scope,
      inputFacts: facts,
      expectedBehavior: expectationFor(model, facts, origin.rowId ?? null, why),
      hash,
      origin,
    });
  };

  /**
   * A cell comparing the input with other facts (`> Complex.aNumber`, `[numB..numC]`): each fact it reads
   * gets a value when it has none (the column's own value for a column, a sample of the column's type
   * otherwise), and the cell's candidates are that value one step below, on and one step above.
   */
  const solvedFromRefs = (c: number, refs: string[][], facts: Facts): unknown[] => {
    const out: unknown[] = [];
    const type = columns[c].type;
    for (const ref of refs) {
      if (ref.length === 1 && ref[0] === columns[c].name) continue;
      let v = readPath(facts, ref);
      if (v === undefined || v === null) {
        v = FALLBACK[type] ?? 0;
        writePath(facts, ref, v);
      }
      for (const d of [0, -1, 1]) {
        const shifted = shiftValue(v, d, type);
        if (shifted !== null) out.push(shifted);
      }
    }
    return out;
  };

  // an input every condition of the row accepts (null when the generated values cannot satisfy one)
  const baseOf = (r: number): { facts: Facts; satisfied: boolean } => {
    const facts: Facts = {};
    for (let c = 0; c < columns.length; c++) {
      const cell = cells[r][c];
      if (!cell.test) facts[columns[c].name] = prng.pick(domainValues[c]);
    }
    let satisfied = true;
    // two passes: cells reading other columns see the values chosen in the first
    for (let pass = 0; pass < 2; pass++)
      for (let c = 0; c < columns.length; c++) {
        const cell = cells[r][c];
        if (!cell.test) continue;
        if (pass === 1 && !cell.usesNames) continue;
        const name = columns[c].name;
        // the probes on the boundary first, then every probe, then the column's whole domain (lazily)
        const saved = { ...facts };
        const around = solvedFromRefs(c, cell.refs, facts);
        function* tries() {
          yield* around;
          for (const p of cell.probes)
            if (p.kind === 'on' || p.kind === 'listed' || p.kind === 'boolean') yield p.value;
          for (const p of cell.probes) yield p.value;
          yield* domainValues[c];
        }
        let found = false;
        let tried = 0;
        for (const v of tries()) {
          tried++;
          facts[name] = v;
          if (cellAccepts(model, r, c, facts) === true) {
            found = true;
            break;
          }
        }
        if (around.length && (!found || tried > around.length)) {
          // the facts solved for did not help: leave them out again
          const v = facts[name];
          for (const k of Object.keys(facts)) if (!(k in saved)) delete facts[k];
          Object.assign(facts, saved, { [name]: v });
        }
        if (!found) {
          facts[name] = cell.probes[0]?.value ?? FALLBACK[columns[c].type];
          if (pass === 1 || !cell.usesNames) satisfied = false;
        }
      }
    return { facts, satisfied };
  };

  // the values a don't-care (`-`) column may take: an unlisted string first, then the column's domain
  const freeValues = columns.map((col, c) =>
    domainValues[c].some((v) => typeof v === 'string') && ['string', 'any'].includes(col.type)
      ? [model.unlisted[c], ...domainValues[c]]
      : domainValues[c],
  );
  const isolated = (rowId: string, facts: Facts): boolean => {
    try {
      return model.compiled.evaluate(facts).matchedRows.every((id) => id === rowId);
    } catch {
      return true;
    }
  };
  /**
   * The row decides the outcome only when no other row matches too (an earlier row under `First` hides
   * it, a second match under `Unique` makes it an error): the don't-care columns are re-chosen (a few
   * seeded tries) until the row is alone, so a fault in one of its conditions changes the outcome.
   */
  const isolate = (r: number, facts: Facts, fixed: string | null): Facts => {
    const rowId = rowIds[r];
    if (isolated(rowId, facts)) return facts;
    const free = columns.map((_, c) => c).filter((c) => !cells[r][c].test && columns[c].name !== fixed);
    if (free.length === 0) return facts;
    for (let attempt = 0; attempt < 12; attempt++) {
      const tried = { ...facts };
      for (const c of free)
        tried[columns[c].name] = attempt === 0 ? freeValues[c][0] : prng.pick(freeValues[c]);
      if (isolated(rowId, tried)) return tried;
    }
    return facts;
  };

  const bases: Facts[] = [];
  for (let r = 0; r < rowIds.length; r++) {
    const rowId = rowIds[r];
    const built = baseOf(r);
    const satisfied = built.satisfied;
    const facts = isolate(r, built.facts, null);
    bases.push(facts);
    add(
      'RowMatch',
      `${rowId}: all conditions true`,
      facts,
      { rowId, probe: 'inside' },
      satisfied
        ? `every condition of ${rowId} accepts the input`
        : `no generated value satisfies every condition of ${rowId}`,
    );
    const conditions = cells[r].filter((c) => c.test).length;
    for (let c = 0; c < columns.length; c++) {
      const cell = cells[r][c];
      if (!cell.test) continue;
      const name = columns[c].name;
      const base = cell.refs.length ? { ...facts } : facts;
      const probes = cell.refs.length
        ? [
            ...cell.probes,
            ...solvedFromRefs(c, cell.refs, base).map((value, i) => ({
              value,
              kind: ['on', 'below', 'above'][i % 3],
            })),
          ]
        : cell.probes;
      for (const probe of probes) {
        const variant = isolate(r, { ...base, [name]: probe.value }, name);
        const accepted = cellAccepts(model, r, c, variant);
        const type: ScenarioType =
          probe.kind === 'unlisted' || probe.kind === 'boolean'
            ? 'EquivalenceClass'
            : accepted !== true && conditions > 1
              ? 'McDc'
              : 'Boundary';
        add(
          type,
          `${rowId}: ${name} ${probe.kind} '${cell.text}' (${canonicalJson(probe.value)})`,
          variant,
          { rowId, column: name, cell: cell.text, probe: probe.kind },
          `${name} = ${canonicalJson(probe.value)} makes '${cell.text}' ${accepted === true ? 'true' : accepted === false ? 'false' : 'null'} in ${rowId}`,
        );
      }
    }
  }

  // a missing and a null value per column, on the first row that tests it
  columns.forEach((col, c) => {
    let r = cells.findIndex((row) => row[c].test !== null);
    if (r < 0) r = 0;
    if (!bases[r]) return;
    const rowId = rowIds[r];
    const missing = { ...bases[r] };
    delete missing[col.name];
    add(
      'MissingInput',
      `${rowId}: ${col.name} missing`,
      missing,
      { rowId, column: col.name, probe: 'missing' },
      `${col.name} is not given`,
    );
    add(
      'NullInput',
      `${rowId}: ${col.name} null`,
      { ...bases[r], [col.name]: null },
      { rowId, column: col.name, probe: 'null' },
      `${col.name} is null`,
    );
  });

  // cross-row combinations: all pairs of a few values per column
  const perColumn = options.pairwiseValuesPerColumn ?? 6;
  const picked = domainValues.map((values) =>
    values.length <= perColumn ? values : prng.shuffle(values).slice(0, perColumn),
  );
  if (columns.length >= 2) {
    pairwise(
      picked.map((v) => v.length),
      prng,
    ).forEach((combo, i) => {
      const facts: Facts = {};
      combo.forEach((v, c) => (facts[columns[c].name] = picked[c][v]));
      add(
        'Pairwise',
        `pairwise #${i + 1}`,
        facts,
        { probe: 'pairwise' },
        'a combination of values across rows',
      );
    });
  }

  return {
    seedRuleCode: options.seedRuleCode,
    scope: 'Rule',
    seed,
    scenarios,
    aiModelUsed: null,
    generationDuration: Math.round((now() - started) * 1000) / 1000,
    candidates,
    duplicatesRemoved: candidates - scenarios.length,
  };
}
