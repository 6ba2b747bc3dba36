// SPDX-License-Identifier: MIT
// Differential test: handoff's provider schemas passed through the providers' own converters,
// as their npm packages ship them (pinned in package.json / package-lock.json here):
//   openai              lib/transform.js            toStrictJsonSchema (strict Structured Outputs)
//   @anthropic-ai/sdk   lib/transform-json-schema.js transformJSONSchema (structured outputs)
// @google/genai converts JSON Schema to its Schema object in processJsonSchema, which it does not
// export: there is no public converter to compare with, so gemini_openapi is checked by
// tests/test_provider_schema.cpp against the Schema reference instead.
//
// For every task schema in CASES and both providers, handoff-check writes the provider schema;
// the converter's output must equal it, or every difference must be listed, with why, in
// tests/fixtures/provider_differential/differences.json. A difference the list does not name,
// or a listed one that no longer occurs, fails the test.
//
//   node differential.cjs HANDOFF_CHECK REPOSITORY_ROOT [--print]
'use strict';

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const [checkExe, root] = process.argv.slice(2);
const printOnly = process.argv.includes('--print');
if (!checkExe || !root) {
  console.error('usage: node differential.cjs HANDOFF_CHECK REPOSITORY_ROOT [--print]');
  process.exit(2);
}

let openai;
let anthropic;
try {
  openai = require('openai/lib/transform');
  anthropic = require('@anthropic-ai/sdk/lib/transform-json-schema');
} catch (error) {
  console.error('FAILED: the provider SDKs are not installed in tests/providers/node_modules.');
  console.error('Install them with: npm ci --prefix tests/providers');
  console.error(String(error.message || error));
  process.exit(1);
}

const CASES = [
  null, // the envelope alone
  'examples/schemas/invoice.schema.json',
  'examples/schemas/ticket.schema.json',
  'tests/fixtures/provider_schemas/pydantic_order.schema.json',
];

const converters = {
  openai: (schema) => openai.toStrictJsonSchema(schema),
  anthropic: (schema) => anthropic.transformJSONSchema(schema),
};

function providerSchema(provider, task) {
  const args = ['schema', '--for', provider];
  if (task) {
    args.push('--task-schema', path.join(root, task));
  }
  const out = execFileSync(checkExe, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return JSON.parse(out);
}

/**
 * Every place where `a` and `b` differ, as "pointer: what", in a stable order. The order of keys
 * counts only in a `properties` map (the order a model is shown the fields); elsewhere a schema
 * object's keys are a set.
 */
function differences(a, b, pointer = '', underProperties = false) {
  if (JSON.stringify(a) === JSON.stringify(b)) {
    return [];
  }
  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObject(a) && isObject(b)) {
    const out = [];
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) {
      const here = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (!(key in b)) {
        out.push(`${here}: removed`);
      } else if (!(key in a)) {
        out.push(`${here}: added ${JSON.stringify(b[key])}`);
      } else {
        out.push(...differences(a[key], b[key], here, key === 'properties' && !underProperties));
      }
    }
    const orderA = Object.keys(a).filter((k) => k in b).join(',');
    const orderB = Object.keys(b).filter((k) => k in a).join(',');
    if (underProperties && orderA !== orderB) {
      out.push(`${pointer}: properties reordered`);
    }
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    return a.flatMap((item, i) => differences(item, b[i], `${pointer}/${i}`));
  }
  return [`${pointer}: ${JSON.stringify(a)} became ${JSON.stringify(b)}`];
}

// differences.json: for each provider, the differences expected in every case ("every case") and
// those of one case ("cases"), each with why it is there.
const listed = JSON.parse(
  fs.readFileSync(path.join(root, 'tests/fixtures/provider_differential/differences.json'), 'utf8'));
let failures = 0;
const found = {};
for (const provider of Object.keys(converters)) {
  const mine = listed[provider] || {};
  for (const task of CASES) {
    const name = task || '(envelope)';
    const sent = providerSchema(provider, task);
    let seen;
    try {
      seen = differences(sent, converters[provider](sent));
    } catch (error) {
      seen = [`(converter refused the schema) ${error.message}`];
    }
    found[`${provider} ${name}`] = seen;
    const expected = [...(mine['every case'] || []), ...((mine.cases || {})[name] || [])].map((e) => e.difference);
    const unlisted = seen.filter((d) => !expected.includes(d));
    const gone = expected.filter((d) => !seen.includes(d));
    for (const d of unlisted) {
      console.error(`FAILED ${provider} ${name}: an unlisted difference: ${d}`);
    }
    for (const d of gone) {
      console.error(`FAILED ${provider} ${name}: a listed difference no longer occurs: ${d}`);
    }
    failures += unlisted.length + gone.length;
    console.log(`${provider} ${name}: ${seen.length} difference(s) with the SDK's converter, all listed: ${unlisted.length === 0}`);
  }
}
if (printOnly) {
  console.log(JSON.stringify(found, null, 2));
  process.exit(0);
}
process.exit(failures === 0 ? 0 : 1);
