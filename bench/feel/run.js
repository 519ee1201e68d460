#!/usr/bin/env node
/*
 * FEEL benchmark: @arbiter/feel (compiled closures) vs feelin (evaluate / unaryTest), side by side.
 * Usage: npm run bench:feel   (or: node bench/feel/run.js)
 * Installs its peer `feelin` into bench/feel/node_modules when missing (no lockfile, not part of the root install),
 * and builds libs/feel when its dist/ is missing. Prints figures; it is not a test.
 */
'use strict';
const { execSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

const here = __dirname;
const root = path.resolve(here, '..', '..');

function ensureFeelin() {
  if (existsSync(path.join(here, 'node_modules', 'feelin', 'package.json'))) return;
  console.log('installing benchmark peer feelin into bench/feel/node_modules …');
  execSync('npm install --no-package-lock --no-save --no-audit --no-fund feelin', {
    cwd: here,
    stdio: 'inherit',
  });
}
function ensureOurs() {
  const dist = path.join(root, 'libs', 'feel', 'dist', 'index.js');
  if (!existsSync(dist)) {
    console.log('building libs/feel …');
    execSync('npx tsc -p tsconfig.build.json', { cwd: path.join(root, 'libs', 'feel'), stdio: 'inherit' });
  }
  return require(dist);
}

function measure(fn, minMs = 400) {
  // warm up, then time batches until minMs elapsed
  for (let i = 0; i < 2000; i++) fn(i);
  let n = 0;
  let batch = 1000;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (elapsed < minMs * 1e6) {
    for (let i = 0; i < batch; i++) fn(i);
    n += batch;
    elapsed = Number(process.hrtime.bigint() - start);
    if (batch < 1e6) batch *= 2;
  }
  const nsPerOp = elapsed / n;
  return { nsPerOp, opsPerSec: 1e9 / nsPerOp };
}

async function main() {
  ensureFeelin();
  const ours = ensureOurs();
  const feelin = await import(path.join(here, 'node_modules', 'feelin', 'dist', 'index.js')).catch(
    () => import('feelin'),
  );

  const inputs = [3, 7, 12, 25, 9, 1];
  const strings = ['a', 'b', 'z', 'c'];
  const cases = [
    { name: 'unary test  < 10', kind: 'unary', src: '< 10', input: (i) => inputs[i % inputs.length] },
    { name: 'unary test  [1..10]', kind: 'unary', src: '[1..10]', input: (i) => inputs[i % inputs.length] },
    {
      name: 'unary test  "a","b","c"',
      kind: 'unary',
      src: '"a","b","c"',
      input: (i) => strings[i % strings.length],
    },
    { name: 'expression  a * b + c', kind: 'expr', src: 'a * b + c', ctx: (i) => ({ a: i % 7, b: 3, c: 5 }) },
    {
      name: 'expression  {x: [1,2,3,4,5][item > 2]}.x',
      kind: 'expr',
      src: '{x: [1,2,3,4,5][item > 2]}.x',
      ctx: () => ({}),
    },
  ];

  // sanity: both engines agree
  for (const c of cases) {
    if (c.kind === 'unary') {
      const u = ours.compileUnaryTests(c.src);
      for (let i = 0; i < 4; i++) {
        const a = u.test(c.input(i));
        const b = feelin.unaryTest(c.src, { '?': c.input(i) });
        const bv = b && typeof b === 'object' && 'value' in b ? b.value : b;
        if (a !== bv)
          console.warn(`  ! results differ for ${c.src} on ${c.input(i)}: ours ${a}, feelin ${bv}`);
      }
    } else {
      const e = ours.compileExpression(c.src, { scope: Object.keys(c.ctx(0)) });
      const a = JSON.stringify(ours.toJs(e.evaluate(c.ctx(1))));
      const b = feelin.evaluate(c.src, c.ctx(1));
      const bv = JSON.stringify(b && typeof b === 'object' && 'value' in b ? b.value : b);
      if (a !== bv) console.warn(`  ! results differ for ${c.src}: ours ${a}, feelin ${bv}`);
    }
  }

  const rows = [];
  for (const c of cases) {
    let oursFn;
    let theirsFn;
    if (c.kind === 'unary') {
      const u = ours.compileUnaryTests(c.src);
      const pre = inputs.map((_, i) => c.input(i));
      oursFn = (i) => u.test(pre[i % pre.length]);
      theirsFn = (i) => feelin.unaryTest(c.src, { '?': pre[i % pre.length] });
    } else {
      const e = ours.compileExpression(c.src, { scope: Object.keys(c.ctx(0)) });
      const ctxs = [0, 1, 2, 3, 4, 5, 6].map((i) => c.ctx(i));
      oursFn = (i) => e.evaluate(ctxs[i % ctxs.length]);
      theirsFn = (i) => feelin.evaluate(c.src, ctxs[i % ctxs.length]);
    }
    const a = measure(oursFn);
    const b = measure(theirsFn, 300);
    rows.push({ name: c.name, ours: a, feelin: b, ratio: a.opsPerSec / b.opsPerSec });
  }

  const fmt = (n) =>
    n >= 1e6 ? (n / 1e6).toFixed(2) + ' M' : n >= 1e3 ? (n / 1e3).toFixed(1) + ' k' : n.toFixed(0) + '  ';
  console.log('');
  console.log(
    `FEEL benchmark — node ${process.version}, feelin ${require(path.join(here, 'node_modules', 'feelin', 'package.json')).version}`,
  );
  console.log(
    'ours = compile once (compileExpression / compileUnaryTests), evaluate many; feelin = evaluate / unaryTest per call',
  );
  console.log('');
  console.log(
    `${'case'.padEnd(44)} ${'ours ops/s'.padStart(12)} ${'ours ns/op'.padStart(11)} ${'feelin ops/s'.padStart(13)} ${'feelin ns/op'.padStart(13)} ${'ratio'.padStart(9)}`,
  );
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(44)} ${fmt(r.ours.opsPerSec).padStart(12)} ${r.ours.nsPerOp.toFixed(1).padStart(11)} ${fmt(r.feelin.opsPerSec).padStart(13)} ${r.feelin.nsPerOp.toFixed(0).padStart(13)} ${(r.ratio.toFixed(0) + '×').padStart(9)}`,
    );
  }
  const minRatio = Math.min(...rows.map((r) => r.ratio));
  const lt = rows[0].ours.nsPerOp;
  console.log('');
  console.log(
    `targets: ≥100× feelin throughput on every case: ${minRatio >= 100 ? 'met' : 'NOT met'} (min ${minRatio.toFixed(0)}×); '< 10' under 500 ns: ${lt < 500 ? 'met' : 'NOT met'} (${lt.toFixed(1)} ns)`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
