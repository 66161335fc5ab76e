// Replays an n8n workflow's HTTP calls against a market09 server, without n8n.
//
// usage: node n8n_replay.mjs <workflow.json> <fixture.json>
//   MARKET09_URL          the server (loopback only)
//   MARKET09_INGEST_KEY   the value of the workflow's "Market09 ingest key" credential
//
// It runs the workflow the way n8n (execution order v1) does for the node types the
// examples use: the manual trigger, Code nodes (run once for all items), IF (v2
// conditions), Loop Over Items (split in batches) and HTTP Request (v4: one call per
// input item, array answers split into items, `onError: continueRegularOutput`,
// header-auth credentials, the "update a parameter in each request" pagination, file
// answers as binary data and binary data as the body).
// Expressions (`={{ … }}`) are evaluated with $json, $input, $(name), $env and $response.
//
// Only the server is called. The profile scraper (api.apify.com), the extraction model
// (api.anthropic.com) and image hosts answer from the fixture (its `images`, base64; other
// image URLs 404); any other address fails the replay. At the
// end it prints one JSON line: every call made, and the answers of the server's calls.
import { readFileSync } from 'node:fs';

const [workflowPath, fixturePath] = process.argv.slice(2);
const workflow = JSON.parse(readFileSync(workflowPath, 'utf8'));
const fixture = JSON.parse(readFileSync(fixturePath, 'utf8'));
const server = process.env.MARKET09_URL;
if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(server || '')) throw new Error('MARKET09_URL must be a loopback http://host:port');
const credentials = { 'Market09 ingest key': { name: 'apikey', value: process.env.MARKET09_INGEST_KEY || '' } };

const nodes = new Map(workflow.nodes.map((node) => [node.name, node]));
const runData = new Map();   // node name -> items of its last run
const loopState = new Map(); // Loop Over Items -> { queue, done }
const calls = [];
const MAX_NODE_RUNS = 10_000; // bounded: a miswired loop fails instead of spinning
let nodeRuns = 0;

const item = (json) => ({ json });
const accessor = (name) => {
  if (!runData.has(name)) throw new Error(`$('${name}') has not run`);
  const items = runData.get(name);
  return { all: () => items, first: () => items[0], last: () => items[items.length - 1], get item() { return items[0]; } };
};

function context(items, index = 0, extra = {}) {
  return {
    $json: items[index]?.json ?? {},
    $input: { all: () => items, first: () => items[0], last: () => items[items.length - 1], item: items[index] },
    $: accessor,
    $env: { MARKET09_URL: server },
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
  items.forEach((entry, index) => {
    const scope = context(items, index);
    const results = node.parameters.conditions.conditions.map((condition) => {
      const left = evaluate(condition.leftValue, scope);
      const right = evaluate(condition.rightValue, scope);
      const { type, operation } = condition.operator;
      switch (`${type}.${operation}`) {
        case 'boolean.true': return left === true;
        case 'boolean.false': return left === false;
        case 'string.equals': return String(left) === String(right);
        case 'string.notEquals': return String(left) !== String(right);
        case 'number.gt': return Number(left) > Number(right);
        case 'array.notEmpty': return Array.isArray(left) && left.length > 0;
        default: throw new Error(`IF operator ${type}.${operation} is not replayed`);
      }
    });
    const passed = node.parameters.conditions.combinator === 'or' ? results.some(Boolean) : results.every(Boolean);
    outputs[passed ? 0 : 1].push(entry);
  });
  return outputs;
}

function runLoop(node, items) {
  let state = loopState.get(node.name);
  const size = node.parameters.batchSize || 1;
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

async function fake(url, init) {
  if (url.startsWith('https://api.apify.com/')) {
    const usernames = JSON.parse(init.body).usernames;
    const profiles = usernames.map((name) => fixture.profiles[name]).filter(Boolean);
    return { status: 200, body: profiles };
  }
  if (url.startsWith('https://api.anthropic.com/')) {
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
  const faked = await fake(url, init);
  if (faked) {
    calls.push({ service: new URL(url).host, method: init.method, status: faked.status });
    return faked;
  }
  if (!url.startsWith(server + '/')) throw new Error(`the replay calls nothing but the server and the fixture: ${url}`);
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  const body = text ? JSON.parse(text) : {};
  const request = typeof init.body === 'string' ? JSON.parse(init.body) : init.body ? `${init.body.length} bytes` : undefined;
  calls.push({ service: 'market09', method: init.method, path: new URL(url).pathname, status: response.status, request, body });
  return { status: response.status, body };
}

async function runHTTP(node, items) {
  const p = node.parameters;
  const output = [];
  for (let index = 0; index < items.length; index++) {
    const scope = context(items, index);
    const headers = {};
    for (const header of p.sendHeaders ? p.headerParameters.parameters : []) headers[header.name] = evaluate(header.value, scope);
    if (p.authentication === 'genericCredentialType') {
      const credential = credentials[node.credentials?.[p.genericAuthType]?.name];
      if (credential) headers[credential.name] = credential.value;
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
    } else if (p.sendBody && p.specifyBody === 'json') {
      const value = evaluate(p.jsonBody, scope);
      body = typeof value === 'string' ? value : JSON.stringify(value);
      headers['Content-Type'] = 'application/json';
    }
    const base = evaluate(p.url, scope);
    const pagination = p.options?.pagination?.pagination;
    for (let page = 0; page < 100; page++) {
      const url = base + (query.size ? '?' + query : '');
      const response = await send(url, { method: p.method || 'GET', headers, body });
      if (response.status >= 400) {
        if (node.onError !== 'continueRegularOutput') throw new Error(`${node.name}: ${response.status} ${JSON.stringify(response.body)}`);
        output.push(item({ error: response.body, statusCode: response.status }));
        break;
      }
      if (p.options?.response?.response?.responseFormat === 'file') {
        output.push({ json: {}, binary: { data: { bytes: response.bytes, mimeType: response.mimeType } } });
        break;
      }
      output.push(...(Array.isArray(response.body) ? response.body.map(item) : [item(response.body)]));
      if (!pagination) break;
      const pageScope = { ...scope, $response: { body: response.body } };
      if (evaluate(pagination.completeExpression, pageScope)) break;
      for (const parameter of pagination.parameters) query.set(parameter.name, evaluate(parameter.value, pageScope));
    }
  }
  return [output];
}

async function execute(name, items) {
  if (++nodeRuns > MAX_NODE_RUNS) throw new Error('the workflow ran more than 10,000 nodes');
  const node = nodes.get(name);
  let outputs;
  switch (node.type) {
    case 'n8n-nodes-base.manualTrigger': outputs = [[item({})]]; break;
    case 'n8n-nodes-base.code': outputs = await runCode(node, items); break;
    case 'n8n-nodes-base.if': outputs = runIf(node, items); break;
    case 'n8n-nodes-base.splitInBatches': outputs = runLoop(node, items); break;
    case 'n8n-nodes-base.httpRequest': outputs = await runHTTP(node, items); break;
    default: throw new Error(`node type ${node.type} is not replayed`);
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
await execute(trigger.name, []);
console.log(JSON.stringify({ calls }));
