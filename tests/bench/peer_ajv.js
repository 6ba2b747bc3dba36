// SPDX-License-Identifier: MIT
// The AJV contestant of the side-by-side benchmark (Node.js). AJV is installed by
// scripts/bench.sh into a directory of the build tree and found through AJV_DIR.
//
// Same full check as handoff's receive and the Python peers: JSON.parse, the envelope schema,
// the task schema on partial_result when the worker claims schema_ok, the coverage arithmetic.
// Schemas are compiled once. AJV's defaults: it stops at the first error (allErrors: false).
// The envelope schema is draft-07 (AJV's default class); with --task-dialect 2020-12 the task
// schema is compiled by Ajv2020, AJV's class for JSON Schema 2020-12 (https://ajv.js.org/json-schema.html).
//
//   node peer_ajv.js --envelope-schema F --task-schema F [--task-dialect 2020-12] [--stride K] --serve NAME=FILE...
//   node peer_ajv.js --envelope-schema F --task-schema F [--task-dialect 2020-12] --stream FILE|-
//
// In serve mode, "run NAME" times one pass over corpus NAME; "verdicts NAME" answers, untimed,
// one letter per envelope (the first letter of the step that found a problem, 'v' when none did).
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');
const { createRequire } = require('module');

const FRACTION_TOLERANCE = 0.005 + 1e-9;

function parseArgs(argv) {
  const args = { serve: {}, stride: 1 };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--serve') {
      while (i + 1 < argv.length && !argv[i + 1].startsWith('--')) {
        const spec = argv[++i];
        const eq = spec.indexOf('=');
        args.serve[spec.slice(0, eq)] = spec.slice(eq + 1);
      }
    } else if (a === '--stride') {
      args.stride = Math.max(1, parseInt(argv[++i], 10));
    } else {
      args[a.replace(/^--/, '')] = argv[++i];
    }
  }
  return args;
}

function loadAjv(module) {
  const dir = process.env.AJV_DIR;
  if (!dir) {
    throw new Error('set AJV_DIR to the directory where ajv is installed (scripts/bench.sh does)');
  }
  const req = createRequire(path.join(path.resolve(dir), 'package.json'));
  return req(module);
}

function makeCheck(envelopeSchema, taskSchema, taskDialect) {
  if (taskDialect !== undefined && taskDialect !== '2020-12') {
    throw new Error('--task-dialect takes 2020-12 (draft-07 is the default)');
  }
  // strict: false, because schemas may carry annotation keywords AJV does not know (x-...,
  // Pydantic's discriminator).
  const options = { allowUnionTypes: true, strict: false };
  const Ajv = loadAjv('ajv');
  const ajv = new Ajv(options);
  const envelope = ajv.compile(envelopeSchema);
  const TaskAjv = taskDialect === '2020-12' ? loadAjv('ajv/dist/2020') : Ajv;
  const task = (TaskAjv === Ajv ? ajv : new TaskAjv(options)).compile(taskSchema);

  function coverageProblems(doc) {
    const c = doc.coverage;
    if (c.items_completed > c.items_expected) {
      return ['items_completed exceeds items_expected'];
    }
    const out = [];
    if (c.items_expected > 0) {
      if (Math.abs(c.fraction - c.items_completed / c.items_expected) > FRACTION_TOLERANCE) {
        out.push('fraction disagrees with items_completed / items_expected');
      }
      if (doc.status === 'ok' && c.items_completed !== c.items_expected) {
        out.push('status ok but not every item is completed');
      }
    } else if (doc.status === 'ok' && Math.abs(c.fraction - 1) > FRACTION_TOLERANCE) {
      out.push('status ok with no counted items must report fraction 1');
    }
    return out;
  }

  return function check(text) {
    let doc;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      return ['parse', [e.message]];
    }
    if (!envelope(doc)) {
      return ['envelope_schema', envelope.errors.map((e) => e.instancePath + ' ' + e.message)];
    }
    let step = '';
    let problems = [];
    if (doc.schema_ok && doc.partial_result !== null) {
      if (!task(doc.partial_result)) {
        step = 'task_schema';
        problems = task.errors.map((e) => e.instancePath + ' ' + e.message);
      }
    }
    const coverage = coverageProblems(doc);
    if (coverage.length > 0 && step === '') {
      step = 'coverage';
    }
    return [step, problems.concat(coverage)];
  };
}

function serve(check, corpora, stride) {
  const loaded = {};
  for (const [name, file] of Object.entries(corpora)) {
    loaded[name] = fs.readFileSync(file, 'utf8').split('\n')
      .filter((line, i) => i % stride === 0 && line.trim() !== '');
  }
  process.stdout.write(JSON.stringify({ ready: true }) + '\n');
  const rl = readline.createInterface({ input: process.stdin });
  rl.on('line', (command) => {
    command = command.trim();
    if (command === 'quit') {
      rl.close();
      return;
    }
    const verdictsAsked = command.startsWith('verdicts ');
    const name = command.startsWith('run ') ? command.slice(4) : verdictsAsked ? command.slice(9) : null;
    const lines = loaded[name];
    if (!lines) {
      process.stdout.write(JSON.stringify({ error: 'unknown command' }) + '\n');
      return;
    }
    if (verdictsAsked) {
      const verdicts = lines.map((text) => {
        const [step, found] = check(text);
        return found.length === 0 ? 'v' : step[0];
      }).join('');
      process.stdout.write(JSON.stringify({ corpus: name, verdicts }) + '\n');
      return;
    }
    const steps = {};
    let problems = 0;
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    for (const text of lines) {
      const [step, found] = check(text);
      steps[step || 'valid'] = (steps[step || 'valid'] || 0) + 1;
      problems += found.length;
    }
    const ns = Number(process.hrtime.bigint() - start);
    const cpu = process.cpuUsage(cpuStart); // every thread of the process: the GC's too
    process.stdout.write(JSON.stringify({
      corpus: name, envelopes: lines.length, us_per_envelope: ns / 1000 / lines.length,
      cpu_us_per_envelope: (cpu.user + cpu.system) / lines.length,
      problems, steps,
    }) + '\n');
  });
}

function stream(check, file) {
  const input = file === '-' ? process.stdin : fs.createReadStream(file);
  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  let anyInvalid = false;
  const out = [];
  rl.on('line', (line) => {
    if (line === '') {
      return;
    }
    const [step, problems] = check(line);
    anyInvalid = anyInvalid || problems.length > 0;
    out.push(JSON.stringify({ valid: problems.length === 0, step, problems }));
    if (out.length >= 256) {
      process.stdout.write(out.join('\n') + '\n');
      out.length = 0;
    }
  });
  rl.on('close', () => {
    if (out.length > 0) {
      process.stdout.write(out.join('\n') + '\n');
    }
    process.exitCode = anyInvalid ? 1 : 0;
  });
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const envelopeSchema = JSON.parse(fs.readFileSync(args['envelope-schema'], 'utf8'));
  const taskSchema = JSON.parse(fs.readFileSync(args['task-schema'], 'utf8'));
  const check = makeCheck(envelopeSchema, taskSchema, args['task-dialect']);
  if (args.stream) {
    stream(check, args.stream);
  } else {
    serve(check, args.serve, args.stride);
  }
}

main();
