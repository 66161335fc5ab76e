// Replays an n8n workflow's HTTP calls against a market09 server, without n8n, as strictly
// as n8n runs it.
//
// usage: node n8n_replay.mjs <workflow.json> <fixture.json>
//        node n8n_replay.mjs --check <workflow.json>   (the checks only: exit 3 and the problems)
//   MARKET09_URL            the server (loopback only): set into the workflow's Settings
//                           node, as the operator does after importing it
//   MARKET09_INGEST_KEY     the value of the "Market09 ingest key" credential
//   N8N_BLOCK_ENV_ACCESS_IN_NODE   as n8n 2.x reads it: unless "false", $env is refused
//   REPLAY_TIME_SCALE       waits (batch intervals, retries) are multiplied by it (default 1)
//
// Before running, every node is checked against the parameters n8n's definition of its
// type and version declares (n8n_nodes.mjs): a parameter n8n would drop, a value of the
// wrong type or shape, a missing credential or an IF condition n8n's strict types refuse
// fails the replay with every problem named, as n8n would refuse or misrun the workflow.
//
// It runs the workflow the way n8n (execution order v1) does for the node types the
// examples use: the manual trigger, Code nodes (run once for all items), IF (v2
// conditions, n8n's type checks), Loop Over Items (split in batches) and HTTP Request (v4:
// one call per input item, sent a batch at a time with the batch interval between, array
// answers split into items, a failed call failing the node after all are sent unless
// `onError: continueRegularOutput`, header-auth credentials, the "update a parameter in
// each request" pagination, file answers as binary data and binary data as the body), and
// the node settings `retryOnFail`/`maxTries`/`waitBetweenTries` (the whole node again).
//
// Only the server is called. The profile scraper (api.apify.com), the extraction model
// (api.anthropic.com) and image hosts answer from the fixture (its `images`, base64; other
// image URLs 404; `model_rate_limited_calls`: the model's calls answered 429); they refuse
// calls without their credential. Any other address fails the replay. At the end it
// prints one JSON line: every call made (with its time in ms from the start), and the
// answers of the server's calls.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { validateWorkflow, ifTypeValidation, filterTypeError, filterPasses } from './n8n_nodes.mjs';

const checkOnly = process.argv[2] === '--check';
const [workflowPath, fixturePath] = process.argv.slice(checkOnly ? 3 : 2);
const workflow = JSON.parse(readFileSync(workflowPath, 'utf8'));

const problems = validateWorkflow(workflow);
if (problems.length || checkOnly) {
  console.log(JSON.stringify({ problems }));
  process.exit(problems.length ? 3 : 0);
}

const fixture = JSON.parse(readFileSync(fixturePath, 'utf8'));
const server = process.env.MARKET09_URL;
if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(server || '')) throw new Error('MARKET09_URL must be a loopback http://host:port');
const timeScale = Number(process.env.REPLAY_TIME_SCALE ?? '1');
const started = Date.now();

// The operator's step after importing: the server's URL in the Settings node, its one place.
const settings = workflow.nodes.find((node) => node.name === 'Settings');
const urlLiteral = /(market09_url:\s*)'[^']*'/g;
if (!settings || (settings.parameters.jsCode.match(urlLiteral) || []).length !== 1) {
  throw new Error('the workflow must set market09_url once, in its Settings node');
}
settings.parameters.jsCode = settings.parameters.jsCode.replace(urlLiteral, `$1'${server}'`);

// The credentials an operator creates (docs/supabase.md): each an n8n "Header Auth" credential.
const credentials = {
  'Market09 ingest key': { name: 'apikey', value: process.env.MARKET09_INGEST_KEY || '' },
  'Apify API token': { name: 'Authorization', value: 'Bearer apify-test-token' },
  'Anthropic API key': { name: 'x-api-key', value: 'anthropic-test-key' },
};

const nodes = new Map(workflow.nodes.map((node) => [node.name, node]));
const runData = new Map();   // node name -> items of its last run
const loopState = new Map(); // Loop Over Items -> { queue, done }
const calls = [];
const MAX_NODE_RUNS = 10_000; // bounded: a miswired loop fails instead of spinning
let nodeRuns = 0;
let modelCalls = 0;

const item = (json) => ({ json });
const accessor = (name) => {
  if (!runData.has(name)) throw new Error(`$('${name}') has not run`);
  const items = runData.get(name);
  return { all: () => items, first: () => items[0], last: () => items[items.length - 1], get item() { return items[0]; } };
};

// n8n 2.x blocks $env in expressions and Code nodes unless N8N_BLOCK_ENV_ACCESS_IN_NODE=false.
const environment = process.env.N8N_BLOCK_ENV_ACCESS_IN_NODE === 'false'
  ? { ...process.env }
  : new Proxy({}, { get() { throw new Error('access to env vars denied'); } });

function context(items, index = 0, extra = {}) {
  return {
    $json: items[index]?.json ?? {},
    $input: { all: () => items, first: () => items[0], last: () => items[items.length - 1], item: items[index] },
    $: accessor,
    $env: environment,
    ...extra,
  };
}

function evaluate(value, scope) {
  if (typeof value !== 'string' || !value.startsWith('=')) return value;
  const text = value.slice(1);
  const whole = text.match(/^\s*\{\{([\s\S]*)\}\}\s*$/);
  const run = (expression) => new Function(...Object.keys(scope), `return (${expression});`)(...Object.values(scope));
  if (whole && !whole[1].includes('}}')) return run(whole[1]);
  return text.replace(/\{\{([\s\S]*?)\}\}/g, (_, expression) => String(run(expression)));
}

async function runCode(node, items) {
  const scope = context(items);
  const body = new Function(...Object.keys(scope), `return (async () => {\n${node.parameters.jsCode}\n})();`);
  const result = await body(...Object.values(scope));
  return [result.map((entry) => (entry.json ? entry : item(entry)))];
}

function runIf(node, items) {
  const outputs = [[], []];
  const conditions = node.parameters.conditions;
  const options = { typeValidation: ifTypeValidation(node), caseSensitive: !node.parameters.options?.ignoreCase };
  items.forEach((entry, index) => {
    const scope = context(items, index);
    const results = conditions.conditions.map((condition, number) => {
      const resolved = { ...condition, leftValue: evaluate(condition.leftValue, scope), rightValue: evaluate(condition.rightValue, scope) };
      const error = filterTypeError(resolved, options, { index: number, item: index });
      if (error) throw new Error(`${node.name}: ${error}`);
      return filterPasses(resolved, options);
    });
    const passed = conditions.combinator === 'or' ? results.some(Boolean) : results.every(Boolean);
    outputs[passed ? 0 : 1].push(entry);
  });
  return outputs;
}

function runLoop(node, items) {
  let state = loopState.get(node.name);
  const size = node.parameters.batchSize ?? 1;
  if (!state || state.finished) {
    state = { queue: [...items], done: [], finished: false };
    loopState.set(node.name, state);
  } else {
    state.done.push(...items);
  }
  if (state.queue.length === 0) {
    state.finished = true;
    return [state.done, []];
  }
  return [[], state.queue.splice(0, size)];
}

function credentialHeader(headers, name) {
  return Object.entries(headers).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
}

async function fake(url, init) {
  if (url.startsWith('https://api.apify.com/')) {
    if (!/^Bearer \S+$/.test(credentialHeader(init.headers, 'Authorization') || '')) return { status: 401, body: { error: { type: 'token-not-provided' } } };
    if (new URL(url).search.includes('token=')) return { status: 400, body: { error: { type: 'the token travels in the workflow' } } };
    const usernames = JSON.parse(init.body).usernames;
    const profiles = usernames.map((name) => fixture.profiles[name]).filter(Boolean);
    return { status: 200, body: profiles };
  }
  if (url.startsWith('https://api.anthropic.com/')) {
    if (!credentialHeader(init.headers, 'x-api-key')) return { status: 401, body: { type: 'error', error: { type: 'authentication_error' } } };
    modelCalls += 1;
    if ((fixture.model_rate_limited_calls || []).includes(modelCalls)) {
      return { status: 429, body: { type: 'error', error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' } } };
    }
    const prompt = JSON.parse(init.body).messages[0].content;
    const match = Object.entries(fixture.extractions).find(([marker]) => prompt.includes(marker));
    if (!match) return { status: 200, body: { content: [{ type: 'text', text: '{"product_name": null}' }] } };
    return { status: 200, body: { content: [{ type: 'text', text: JSON.stringify(match[1]) }] } };
  }
  if (Object.hasOwn(fixture.images, url)) {
    return { status: 200, bytes: Buffer.from(fixture.images[url], 'base64'), mimeType: 'image/jpeg' };
  }
  if (/^https:\/\/[a-z0-9.-]*(cdninstagram\.com|link\.example)\//.test(url)) return { status: 404, body: { error: 'not in the fixture' } };
  return null;
}

async function send(url, init) {
  if (typeof url !== 'string' || !/^https?:\/\//.test(url)) return { status: 0, body: { error: `invalid URL: ${url}` } };
  const at = Date.now() - started;
  const faked = await fake(url, init);
  if (faked) {
    calls.push({ service: new URL(url).host, method: init.method, status: faked.status, at });
    return faked;
  }
  if (!url.startsWith(server + '/')) throw new Error(`the replay calls nothing but the server and the fixture: ${url}`);
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  const body = text ? JSON.parse(text) : {};
  const request = typeof init.body === 'string' ? JSON.parse(init.body) : init.body ? `${init.body.length} bytes` : undefined;
  calls.push({ service: 'market09', method: init.method, path: new URL(url).pathname, status: response.status, request, body, at });
  return { status: response.status, body };
}

async function runHTTP(node, items) {
  const p = node.parameters;
  const output = [];
  const batch = p.options?.batching?.batch;
  const batchSize = batch?.batchSize ?? -1;
  const batchInterval = batch?.batchInterval ?? 0;
  const failures = [];
  for (let index = 0; index < items.length; index++) {
    if (index > 0 && batchSize > 0 && batchInterval > 0 && index % batchSize === 0) await sleep(batchInterval * timeScale);
    const scope = context(items, index);
    const headers = {};
    for (const header of p.sendHeaders ? p.headerParameters.parameters : []) headers[header.name] = evaluate(header.value, scope);
    if (p.authentication === 'genericCredentialType') {
      const name = node.credentials?.[p.genericAuthType]?.name;
      const credential = credentials[name];
      if (!credential) throw new Error(`${node.name}: credential "${name}" does not exist`);
      headers[credential.name] = credential.value;
    }
    const query = new URLSearchParams();
    for (const parameter of p.sendQuery ? p.queryParameters.parameters : []) query.set(parameter.name, evaluate(parameter.value, scope));
    let body;
    if (p.sendBody && p.contentType === 'binaryData') {
      const binary = items[index].binary?.[p.inputDataFieldName];
      if (!binary) {
        if (node.onError !== 'continueRegularOutput') throw new Error(`${node.name}: no binary data`);
        output.push(item({ error: `no binary property ${p.inputDataFieldName}` }));
        continue;
      }
      body = binary.bytes;
      headers['Content-Type'] = binary.mimeType;
    } else if (p.sendBody && (p.contentType ?? 'json') === 'json' && p.specifyBody === 'json') {
      const value = evaluate(p.jsonBody, scope);
      body = typeof value === 'string' ? value : JSON.stringify(value);
      JSON.parse(body);
      headers['Content-Type'] = 'application/json';
    }
    const base = evaluate(p.url, scope);
    const pagination = p.options?.pagination?.pagination;
    for (let page = 0; page < 100; page++) {
      const url = base + ([...query].length ? '?' + query : '');
      const response = await send(url, { method: p.method || 'GET', headers, body });
      if (response.status >= 400 || response.status === 0) {
        failures.push(`${node.name}: ${response.status} ${JSON.stringify(response.body)}`);
        output.push(item({ error: response.body, statusCode: response.status }));
        break;
      }
      if (p.options?.response?.response?.responseFormat === 'file') {
        const field = p.options.response.response.outputPropertyName ?? 'data';
        output.push({ json: {}, binary: { [field]: { bytes: response.bytes, mimeType: response.mimeType } } });
        break;
      }
      output.push(...(Array.isArray(response.body) ? response.body.map(item) : [item(response.body)]));
      if (!pagination) break;
      const pageScope = { ...scope, $response: { body: response.body } };
      if (evaluate(pagination.completeExpression, pageScope)) break;
      for (const parameter of pagination.parameters.parameters) query.set(parameter.name, evaluate(parameter.value, pageScope));
    }
  }
  // n8n sends every item's request, then fails the node on the first failed one.
  if (failures.length && node.onError !== 'continueRegularOutput') throw new Error(failures[0]);
  return [output];
}

async function runNode(node, items) {
  switch (node.type) {
    case 'n8n-nodes-base.manualTrigger': return [[item({})]];
    case 'n8n-nodes-base.code': return runCode(node, items);
    case 'n8n-nodes-base.if': return runIf(node, items);
    case 'n8n-nodes-base.splitInBatches': return runLoop(node, items);
    case 'n8n-nodes-base.httpRequest': return runHTTP(node, items);
    default: throw new Error(`node type ${node.type} is not replayed`);
  }
}

async function execute(name, items) {
  if (++nodeRuns > MAX_NODE_RUNS) throw new Error('the workflow ran more than 10,000 nodes');
  const node = nodes.get(name);
  // retryOnFail runs the whole node again (every item), after waitBetweenTries.
  const tries = node.retryOnFail ? Math.min(Math.max(node.maxTries ?? 3, 2), 5) : 1;
  let outputs;
  for (let attempt = 1; ; attempt++) {
    try {
      outputs = await runNode(node, items);
      break;
    } catch (error) {
      if (attempt >= tries) throw error;
      calls.push({ service: 'n8n', retry: node.name, attempt: attempt + 1, at: Date.now() - started });
      await sleep(Math.min(Math.max(node.waitBetweenTries ?? 1000, 0), 5000) * timeScale);
    }
  }
  if (node.alwaysOutputData && outputs.every((output) => output.length === 0)) outputs[0] = [item({})];
  runData.set(name, outputs.find((output) => output.length) ?? []);
  const connections = workflow.connections[name]?.main ?? [];
  for (let index = 0; index < connections.length; index++) {
    if (!outputs[index]?.length) continue;
    for (const target of connections[index]) await execute(target.node, outputs[index]);
  }
}

const trigger = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger');
try {
  await execute(trigger.name, []);
} catch (error) {
  console.log(JSON.stringify({ error: error.message, calls }));
  process.exit(4);
}
console.log(JSON.stringify({ calls }));
