/** DRG evaluator: decisions, input data, BKMs, decision services and boxed expressions on top of @arbiter/feel. */
import {
  CompiledExpression,
  CompiledUnaryTests,
  FeelContext,
  FeelDate,
  FeelDateTime,
  FeelFunction,
  FeelRange,
  FeelTime,
  FeelValue,
  Scope,
  TypeNode,
  callFeelFunction,
  callFeelFunctionNamed,
  compileExpression,
  compileUnaryTests,
  externalJavaFunction,
  hasOwn,
  isContext,
  isInstanceOf,
  normalizeTypeName,
  parseTypeExpression,
  runEvaluation,
} from '@arbiter/feel';
import { evaluateDecisionTable } from './decision-table';
import { DecisionService, DmnModel, Expression, ItemDefinition, collectNames } from './model';

export interface EvaluationOutcome {
  value: FeelValue;
  warnings: string[];
}

const BUILTIN_TYPES = new Set([
  'number',
  'string',
  'boolean',
  'date',
  'time',
  'date and time',
  'days and time duration',
  'years and months duration',
  'context',
  'list',
  'range',
  'function',
  'Any',
  'Null',
]);

export interface DecisionTableEvaluator {
  (table: import('./model').DecisionTable, scope: Scope, ev: DmnEvaluator): FeelValue;
}

export interface DmnEvaluatorOptions {
  /** plug a rule engine in for decision tables (default: the reference evaluator in decision-table.ts) */
  decisionTable?: DecisionTableEvaluator;
  /** other models, found by namespace, for DMN `import`s (their elements are visible as `<import name>.<element>`) */
  models?: DmnModel[];
}

export class DmnEvaluator {
  readonly names: string[];
  private exprCache = new Map<string, CompiledExpression | null>();
  private testCache = new Map<string, CompiledUnaryTests | null>();
  private itemDefs = new Map<string, ItemDefinition>();
  private byId = new Map<string, { kind: 'decision' | 'input' | 'bkm' | 'service'; name: string }>();
  private dtEvaluator: DecisionTableEvaluator;
  private imported = new Map<string, DmnEvaluator>();

  constructor(
    readonly model: DmnModel,
    opts: DmnEvaluatorOptions = {},
  ) {
    const names = collectNames(model);
    for (const imp of model.imports) {
      const other = opts.models?.find((m) => m !== model && m.namespace === imp.namespace);
      if (!other || !imp.name) continue;
      const child = new DmnEvaluator(other, { ...opts, models: opts.models?.filter((m) => m !== model) });
      this.imported.set(imp.name, child);
      for (const n of child.names) names.add(`${imp.name}.${n}`);
    }
    this.names = [...names];
    for (const i of model.itemDefinitions) this.itemDefs.set(i.name, i);
    for (const d of model.decisions) this.byId.set(d.id, { kind: 'decision', name: d.name });
    for (const d of model.inputData) this.byId.set(d.id, { kind: 'input', name: d.name });
    for (const d of model.bkms) this.byId.set(d.id, { kind: 'bkm', name: d.name });
    for (const d of model.decisionServices) this.byId.set(d.id, { kind: 'service', name: d.name });
    this.dtEvaluator = opts.decisionTable ?? evaluateDecisionTable;
  }

  // ------------------------------------------------------------ compilation helpers
  expression(text: string): CompiledExpression | null {
    let c = this.exprCache.get(text);
    if (c === undefined) {
      try {
        c = compileExpression(text, { scope: this.names, resolveType: this.resolveType });
      } catch (e) {
        c = null;
        this.warnings?.push(`syntax error: ${(e as Error).message}`);
      }
      this.exprCache.set(text, c);
    }
    if (c === null) this.warnings?.push(`cannot compile expression: ${text.slice(0, 80)}`);
    return c;
  }
  unaryTests(text: string): CompiledUnaryTests | null {
    let c = this.testCache.get(text);
    if (c === undefined) {
      try {
        c = compileUnaryTests(text, { scope: this.names, resolveType: this.resolveType });
      } catch (e) {
        c = null;
        this.warnings?.push(`syntax error in unary tests: ${(e as Error).message}`);
      }
      this.testCache.set(text, c);
    }
    return c;
  }

  readonly resolveType = (name: string): TypeNode | null => {
    const dot = name.indexOf('.');
    if (dot > 0 && this.imported.has(name.slice(0, dot)))
      return this.imported.get(name.slice(0, dot))!.resolveType(name.slice(dot + 1));
    const def = this.itemDefs.get(stripPrefix(name));
    if (!def) return null;
    if (def.isCollection)
      return { kind: 'list', element: this.itemDefToType({ ...def, isCollection: false }) };
    return this.itemDefToType(def);
  };
  private itemDefToType(def: ItemDefinition): TypeNode {
    if (def.isCollection)
      return { kind: 'list', element: this.itemDefToType({ ...def, isCollection: false }) };
    if (def.components.length)
      return {
        kind: 'context',
        entries: def.components.map((c) => ({ name: c.name, type: this.itemDefToType(c) })),
      };
    if (def.typeRef) return typeRefToNode(def.typeRef);
    return { kind: 'named', name: 'Any' };
  }

  // ------------------------------------------------------------ type coercion (DMN 1.3 §10.3.2.9 conversions)
  coerce(v: FeelValue, typeRef: string | undefined): FeelValue {
    if (v === null || v === undefined || !typeRef) return v ?? null;
    const name = stripPrefix(typeRef);
    const def = this.itemDefs.get(name);
    if (def) return this.coerceItem(v, def, 0);
    const dot = typeRef.indexOf('.');
    if (dot > 0 && this.imported.has(typeRef.slice(0, dot)))
      return this.imported.get(typeRef.slice(0, dot))!.coerce(v, typeRef.slice(dot + 1));
    return coerceBuiltin(v, typeRef, this.resolveType);
  }

  private coerceItem(v: FeelValue, def: ItemDefinition, depth: number): FeelValue {
    if (v === null || depth > 50) return v;
    if (def.isCollection) {
      const list = Array.isArray(v) ? v : [v];
      const el: ItemDefinition = { ...def, isCollection: false, typeConstraint: undefined };
      const out: FeelValue[] = [];
      for (const x of list) {
        const c = this.coerceItem(x, el, depth + 1);
        if (c === null && x !== null) return null;
        out.push(c);
      }
      return this.checkConstraint(out, def.typeConstraint);
    }
    if (Array.isArray(v) && v.length === 1) v = v[0];
    let r: FeelValue = v;
    if (def.components.length) {
      if (!isContext(v)) return null;
      const out: FeelContext = { ...v };
      for (const c of def.components) {
        if (!hasOwn(v, c.name))
          return (this.warnings?.push(`missing component '${c.name}' of ${def.name}`), null);
        const x = v[c.name];
        const cv = this.coerceItem(x, c, depth + 1);
        if (cv === null && x !== null) return null;
        out[c.name] = cv;
      }
      r = out;
    } else if (def.typeRef) {
      const inner = this.itemDefs.get(stripPrefix(def.typeRef));
      r =
        inner && inner !== def
          ? this.coerceItem(v, inner, depth + 1)
          : coerceBuiltin(v, def.typeRef, this.resolveType);
      if (r === null) return null;
    } else if (def.functionItem) {
      if (!(v instanceof FeelFunction)) return null;
    }
    r = this.checkConstraint(r, def.allowedValues);
    return this.checkConstraint(r, def.typeConstraint);
  }

  private checkConstraint(v: FeelValue, constraint: string | undefined): FeelValue {
    if (!constraint || v === null) return v;
    const t = this.unaryTests(constraint);
    if (!t) return v;
    return t.test(v) === true
      ? v
      : (this.warnings?.push(`value does not satisfy allowed values ${constraint}`), null);
  }

  // ------------------------------------------------------------ boxed expressions
  evalExpr(e: Expression | null, scope: Scope): FeelValue {
    if (!e) return null;
    const v = this.evalExprRaw(e, scope);
    return e.kind !== 'unsupported' && e.kind !== 'function' && e.typeRef ? this.coerce(v, e.typeRef) : v;
  }

  private evalExprRaw(e: Expression, scope: Scope): FeelValue {
    switch (e.kind) {
      case 'literal': {
        if (!e.text.trim()) return null;
        const c = this.expression(e.text);
        return c ? c.evaluateIn(scope) : null;
      }
      case 'context': {
        const ctx: FeelContext = {};
        const inner = new Scope(ctx, scope);
        for (const en of e.entries) {
          if (!en.variable) return this.evalExpr(en.value, inner);
          ctx[en.variable.name] = this.coerce(this.evalExpr(en.value, inner), en.variable.typeRef);
        }
        return ctx;
      }
      case 'invocation': {
        const f = this.evalExpr(e.fn, scope);
        if (!(f instanceof FeelFunction)) {
          this.warnings?.push('invocation target is not a function');
          return null;
        }
        const named: Record<string, FeelValue> = {};
        for (const b of e.bindings) named[b.name] = this.evalExpr(b.value, scope);
        if (f.params.length && f.params.every((p) => hasOwn(named, p.name)) === false) {
          for (const p of f.params) if (!hasOwn(named, p.name)) named[p.name] = null;
        }
        return callFeelFunctionNamed(f, named);
      }
      case 'relation':
        return e.rows.map((row) => {
          const ctx: FeelContext = {};
          e.columns.forEach((c, i) => (ctx[c.name] = this.evalExpr(row[i] ?? null, scope)));
          return ctx;
        });
      case 'list':
        return e.items.map((i) => this.evalExpr(i, scope));
      case 'function':
        return this.makeFunction(e, scope);
      case 'decisionTable':
        return this.dtEvaluator(e.table, scope, this);
      case 'conditional': {
        const c = this.evalExpr(e.if, scope);
        if (c !== null && typeof c !== 'boolean') return null;
        return c === true ? this.evalExpr(e.then, scope) : this.evalExpr(e.else, scope);
      }
      case 'filter': {
        const l = this.evalExpr(e.in, scope);
        if (l === null) return null;
        const list = Array.isArray(l) ? l : [l];
        const outList: FeelValue[] = [];
        for (const item of list) {
          const withItem = new Scope({ item }, scope);
          const r = this.evalExpr(e.match, isContext(item) ? new Scope(item, withItem) : withItem);
          if (r !== null && typeof r !== 'boolean') return null;
          if (r === true) outList.push(item);
        }
        return outList;
      }
      case 'for': {
        const l = iterable(this.evalExpr(e.in, scope));
        if (l === null) return null;
        const results: FeelValue[] = [];
        for (const x of l)
          results.push(this.evalExpr(e.return, new Scope({ [e.variable]: x, partial: results }, scope)));
        return results;
      }
      case 'some':
      case 'every': {
        const l = iterable(this.evalExpr(e.in, scope));
        if (l === null) return null;
        for (const x of l) {
          const r = this.evalExpr(e.satisfies, new Scope({ [e.variable]: x }, scope));
          if (r !== null && typeof r !== 'boolean') return null;
          if (e.kind === 'some' && r === true) return true;
          if (e.kind === 'every' && r !== true) return false;
        }
        return e.kind === 'every';
      }
      case 'unsupported':
        this.warnings?.push(`unsupported expression <${e.element}>`);
        return null;
    }
  }

  private makeFunction(e: Extract<Expression, { kind: 'function' }>, scope: Scope, name?: string): FeelValue {
    if (e.functionKind === 'Java') {
      const def = this.evalExpr(e.body, scope);
      const flat = isContext(def) && !isContext(def.java) ? { java: def } : def;
      return (
        externalJavaFunction(
          flat,
          e.params.map((p) => p.name),
        ) ?? null
      );
    }
    if (e.functionKind === 'PMML') return null;
    const params = e.params.map((p) => ({ name: p.name, type: p.typeRef }));
    return new FeelFunction(
      params,
      (args) => {
        const vars: Record<string, FeelValue> = {};
        for (let i = 0; i < params.length; i++) {
          const a = args[i] ?? null;
          const c = this.coerce(a, params[i].type);
          if (c === null && a !== null) return null;
          vars[params[i].name] = c;
        }
        return this.coerce(this.evalExpr(e.body, new Scope(vars, scope)), e.typeRef);
      },
      { name },
    );
  }

  // ------------------------------------------------------------ DRG
  warnings: string[] | null = null;

  /** Evaluate one decision by name (or id) with input data values (host JSON or FEEL values). */
  evaluateDecision(nameOrId: string, inputs: Record<string, unknown> = {}): EvaluationOutcome {
    const d =
      this.model.decisions.find((x) => x.name === nameOrId) ??
      this.model.decisions.find((x) => x.id === nameOrId);
    if (!d) throw new Error(`Unknown decision '${nameOrId}'`);
    return this.run(() => this.decisionValue(d.id, new Run(inputs as Record<string, FeelValue>)));
  }

  /** Evaluate every decision; returns name -> value. */
  evaluateAll(inputs: Record<string, unknown> = {}): {
    values: Record<string, FeelValue>;
    warnings: string[];
  } {
    const run = new Run(inputs as Record<string, FeelValue>);
    const values: Record<string, FeelValue> = {};
    const r = this.run(() => {
      for (const d of this.model.decisions) values[d.name] = this.decisionValue(d.id, run);
      return null;
    });
    return { values, warnings: r.warnings };
  }

  /** Invoke a decision service (or BKM) by name with named parameters. */
  invoke(name: string, args: Record<string, unknown> = {}): EvaluationOutcome {
    return this.run(() => {
      const run = new Run(args as Record<string, FeelValue>);
      const s = this.model.decisionServices.find((x) => x.name === name || x.id === name);
      if (s) return this.serviceCall(s, args as Record<string, FeelValue>, run, true);
      const b = this.model.bkms.find((x) => x.name === name || x.id === name);
      if (b) {
        const f = this.bkmFunction(b.id, run);
        return f instanceof FeelFunction ? callFeelFunctionNamed(f, args as Record<string, FeelValue>) : null;
      }
      throw new Error(`Unknown invocable '${name}'`);
    });
  }

  private run(fn: () => FeelValue): EvaluationOutcome {
    const warnings: string[] = [];
    const prevW = this.warnings;
    this.warnings = warnings;
    try {
      return { value: runEvaluation(warnings, fn), warnings };
    } finally {
      this.warnings = prevW;
    }
  }

  private inputValue(id: string, run: Run): FeelValue {
    const inp = this.model.inputData.find((x) => x.id === id);
    if (!inp) return null;
    const raw = hasOwn(run.inputs, inp.name) ? run.inputs[inp.name] : null;
    return this.coerce(raw ?? null, inp.variable.typeRef);
  }

  private knowledgeScope(ids: string[], run: Run, vars: Record<string, FeelValue>): void {
    for (const id of ids) {
      const k = this.byId.get(id);
      if (!k) continue;
      if (k.kind === 'bkm') vars[k.name] = this.bkmFunction(id, run);
      else if (k.kind === 'service') vars[k.name] = this.serviceFunction(id, run);
    }
  }

  bkmFunction(id: string, run: Run): FeelValue {
    const cached = run.bkms.get(id);
    if (cached !== undefined) return cached;
    const b = this.model.bkms.find((x) => x.id === id);
    if (!b || !b.logic) return null;
    const vars: Record<string, FeelValue> = {};
    run.bkms.set(id, null);
    this.knowledgeScope(b.requiredKnowledge, run, vars);
    // BKMs may also call themselves recursively
    const scope = new Scope(vars, null);
    const f =
      b.logic.kind === 'function' ? this.makeFunction(b.logic, scope, b.name) : this.evalExpr(b.logic, scope);
    vars[b.name] = f;
    run.bkms.set(id, f);
    return f;
  }

  private serviceFunction(id: string, run: Run): FeelValue {
    const s = this.model.decisionServices.find((x) => x.id === id);
    if (!s) return null;
    const params = [...s.inputData, ...s.inputDecisions].map((pid) => ({
      name: this.byId.get(pid)?.name ?? pid,
      type: (this.model.inputData.find((x) => x.id === pid) ?? this.model.decisions.find((x) => x.id === pid))
        ?.variable.typeRef,
    }));
    return new FeelFunction(
      params,
      (args) => {
        if (args.length < params.length) {
          this.warnings?.push(`decision service '${s.name}' expects ${params.length} argument(s)`);
          return null;
        }
        const named: Record<string, FeelValue> = {};
        for (let i = 0; i < params.length; i++) {
          const a = args[i] ?? null;
          const c = this.coerce(a, params[i].type);
          if (c === null && a !== null) {
            this.warnings?.push(
              `argument '${params[i].name}' of decision service '${s.name}' has the wrong type`,
            );
            return null;
          }
          named[params[i].name] = c;
        }
        return this.serviceCall(s, named, new Run({}), false);
      },
      { name: s.name },
    );
    void run;
  }

  private serviceCall(
    s: DecisionService,
    args: Record<string, FeelValue>,
    _outer: Run,
    direct: boolean,
  ): FeelValue {
    const run = new Run({});
    // input data parameters
    for (const id of s.inputData) {
      const name = this.byId.get(id)?.name;
      if (name) run.inputs[name] = hasOwn(args, name) ? args[name] : null;
    }
    // input decisions are overridden by the parameters
    for (const id of s.inputDecisions) {
      const name = this.byId.get(id)?.name;
      if (!name) continue;
      run.decisions.set(
        id,
        hasOwn(args, name)
          ? this.coerce(args[name], this.model.decisions.find((d) => d.id === id)?.variable.typeRef)
          : null,
      );
    }
    const outputs = s.outputDecisions.map((id) => ({
      id,
      name: this.byId.get(id)?.name ?? id,
      value: this.decisionValue(id, run),
    }));
    if (outputs.length === 1 && !direct) return this.coerce(outputs[0].value, s.variable.typeRef);
    const ctx: FeelContext = {};
    for (const o of outputs)
      ctx[o.name] = outputs.length === 1 ? this.coerce(o.value, s.variable.typeRef) : o.value;
    return outputs.length === 1 ? ctx : (this.coerce(ctx, s.variable.typeRef) ?? ctx);
  }

  /** the context an importing model sees under the import name: input data, decisions, BKMs, decision services */
  importContext(outer: Run): FeelValue {
    const cached = outer.importContexts.get(this);
    if (cached) return cached;
    const run = new Run(outer.inputs);
    const ctx: FeelContext = {};
    outer.importContexts.set(this, ctx);
    for (const i of this.model.inputData) ctx[i.name] = this.inputValue(i.id, run);
    for (const b of this.model.bkms) ctx[b.name] = this.bkmFunction(b.id, run);
    for (const s of this.model.decisionServices) ctx[s.name] = this.serviceFunction(s.id, run);
    for (const d of this.model.decisions) ctx[d.name] = this.decisionValue(d.id, run);
    for (const [name, child] of this.imported) ctx[name] = child.importContext(run);
    return ctx;
  }

  decisionValue(id: string, run: Run): FeelValue {
    if (run.decisions.has(id)) return run.decisions.get(id)!;
    const d = this.model.decisions.find((x) => x.id === id);
    if (!d) return null;
    if (run.active.has(id)) {
      this.warnings?.push(`cyclic requirement at decision '${d.name}'`);
      return null;
    }
    run.active.add(id);
    try {
      const vars: Record<string, FeelValue> = {};
      // all input data are visible (lenient), required decisions are evaluated first
      for (const i of this.model.inputData) vars[i.name] = this.inputValue(i.id, run);
      for (const rd of d.requiredDecisions) {
        const name = this.byId.get(rd)?.name;
        if (name) vars[name] = this.decisionValue(rd, run);
      }
      this.knowledgeScope(d.requiredKnowledge, run, vars);
      for (const [name, child] of this.imported) vars[name] = child.importContext(run);
      // knowledge not declared but present (lenient): all BKMs and services
      for (const b of this.model.bkms) if (!hasOwn(vars, b.name)) vars[b.name] = this.bkmFunction(b.id, run);
      for (const s of this.model.decisionServices)
        if (!hasOwn(vars, s.name)) vars[s.name] = this.serviceFunction(s.id, run);
      const value = this.coerce(this.evalExpr(d.expression, new Scope(vars, null)), d.variable.typeRef);
      run.decisions.set(id, value);
      return value;
    } finally {
      run.active.delete(id);
    }
  }
}

export class Run {
  decisions = new Map<string, FeelValue>();
  bkms = new Map<string, FeelValue>();
  active = new Set<string>();
  importContexts = new Map<DmnEvaluator, FeelContext>();
  constructor(readonly inputs: Record<string, FeelValue>) {}
}

function iterable(v: FeelValue): FeelValue[] | null {
  if (v === null) return null;
  if (Array.isArray(v)) return v;
  if (v instanceof FeelRange) return null;
  return [v];
}

export function stripPrefix(t: string): string {
  if (BUILTIN_TYPES.has(t)) return t;
  const i = t.indexOf(':');
  if (i > 0 && !t.includes(' ', 0)) return t.slice(i + 1);
  if (i > 0 && t.slice(0, i).indexOf(' ') < 0) return t.slice(i + 1);
  return t;
}

function typeRefToNode(typeRef: string): TypeNode {
  const t = normalizeTypeName(stripPrefix(typeRef));
  try {
    return parseTypeExpression(t);
  } catch {
    return { kind: 'named', name: t };
  }
}

/** Conform a value to a built-in (or FEEL type expression) typeRef: singleton unwrap, date -> date and time, else null. */
export function coerceBuiltin(
  v: FeelValue,
  typeRef: string,
  resolve?: (n: string) => TypeNode | null,
): FeelValue {
  if (v === null) return null;
  const t = typeRefToNode(typeRef);
  if (t.kind === 'named') {
    const n = normalizeTypeName(t.name);
    if (n === 'Any' || (!BUILTIN_TYPES.has(n) && !(resolve && resolve(n)))) return v;
  }
  if (isInstanceOf(v, t, resolve)) return v;
  if (
    t.kind === 'named' &&
    normalizeTypeName(t.name) === 'date and time' &&
    v instanceof FeelDate &&
    !(v instanceof FeelDateTime)
  )
    return new FeelDateTime(v, new FeelTime(0, 0, 0, 0, 0, null));
  if (Array.isArray(v) && v.length === 1 && t.kind !== 'list' && isInstanceOf(v[0], t, resolve)) return v[0];
  if (t.kind === 'list' && !Array.isArray(v) && isInstanceOf(v, t.element, resolve)) return [v];
  return null;
}

export { callFeelFunction };
