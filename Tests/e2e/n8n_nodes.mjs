// The parameters n8n's node definitions declare for the node types and versions the
// example workflows use, and the checks n8n applies to them, so the replay refuses what
// n8n would refuse (or silently drop). Written from n8n's source (2.x):
//   packages/nodes-base/nodes/HttpRequest/V3/Description.ts   (httpRequest 3 to 4.3)
//   packages/nodes-base/nodes/If/V2/IfV2.node.ts               (if 2, 2.1, 2.2)
//   packages/nodes-base/nodes/Code/Code.node.ts, descriptions/ (code 1, 2)
//   packages/nodes-base/nodes/SplitInBatches/v3/               (splitInBatches 3)
//   packages/nodes-base/nodes/ManualTrigger/                   (manualTrigger 1)
//   packages/workflow/src/NodeParameters/FilterParameter.ts    (the IF node's conditions)
//   packages/workflow/src/TypeValidation.ts                     (strict and loose types)
//   packages/workflow/src/Workflow.ts, WorkflowExecute.ts      (node settings: retries, onError)
// Only what the examples can reach is declared; a parameter or node type not declared
// here is an error, not a pass.

const expression = (value) => typeof value === 'string' && value.startsWith('=');

// A property: { name, type, options?, default?, required?, noDataExpression?, minValue?,
// multipleValues?, values? (fixedCollection option -> properties), show?, hide? }.
// `show`/`hide` map a sibling parameter (or '@version', or '/root' for the node's own
// top level) to the values that show/hide the property, as n8n's displayOptions do.
const keyValue = [
  { name: 'name', type: 'string', default: '' },
  { name: 'value', type: 'string', default: '' },
];

const httpRequest = [
  { name: 'curlImport', type: 'curlImport' },
  { name: 'method', type: 'options', options: ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'], default: 'GET' },
  { name: 'url', type: 'string', default: '', required: true },
  { name: 'authentication', type: 'options', options: ['none', 'predefinedCredentialType', 'genericCredentialType'], default: 'none', noDataExpression: true },
  { name: 'nodeCredentialType', type: 'credentialsSelect', required: true, noDataExpression: true, show: { authentication: ['predefinedCredentialType'] } },
  { name: 'genericAuthType', type: 'credentialsSelect', required: true, show: { authentication: ['genericCredentialType'] },
    options: ['httpBasicAuth', 'httpBearerAuth', 'httpDigestAuth', 'httpHeaderAuth', 'httpQueryAuth', 'httpCustomAuth', 'oAuth1Api', 'oAuth2Api'] },
  { name: 'provideSslCertificates', type: 'boolean', default: false },
  { name: 'sendQuery', type: 'boolean', default: false, noDataExpression: true },
  { name: 'specifyQuery', type: 'options', options: ['keypair', 'json'], default: 'keypair', show: { sendQuery: [true] } },
  { name: 'queryParameters', type: 'fixedCollection', multipleValues: true, show: { sendQuery: [true], specifyQuery: ['keypair'] },
    values: { parameters: keyValue } },
  { name: 'jsonQuery', type: 'json', show: { sendQuery: [true], specifyQuery: ['json'] } },
  { name: 'sendHeaders', type: 'boolean', default: false, noDataExpression: true },
  { name: 'specifyHeaders', type: 'options', options: ['keypair', 'json'], default: 'keypair', show: { sendHeaders: [true] } },
  { name: 'headerParameters', type: 'fixedCollection', multipleValues: true, show: { sendHeaders: [true], specifyHeaders: ['keypair'] },
    values: { parameters: keyValue } },
  { name: 'jsonHeaders', type: 'json', show: { sendHeaders: [true], specifyHeaders: ['json'] } },
  { name: 'sendBody', type: 'boolean', default: false, noDataExpression: true },
  { name: 'contentType', type: 'options', options: ['form-urlencoded', 'multipart-form-data', 'json', 'binaryData', 'raw'], default: 'json',
    show: { sendBody: [true] } },
  { name: 'specifyBody', type: 'options', options: ['keypair', 'json'], default: 'keypair', show: { sendBody: [true], contentType: ['json'] } },
  { name: 'specifyBody', type: 'options', options: ['keypair', 'string'], default: 'keypair', show: { sendBody: [true], contentType: ['form-urlencoded'] } },
  { name: 'bodyParameters', type: 'fixedCollection', multipleValues: true, show: { sendBody: [true], contentType: ['json'], specifyBody: ['keypair'] },
    values: { parameters: keyValue } },
  { name: 'jsonBody', type: 'json', show: { sendBody: [true], contentType: ['json'], specifyBody: ['json'] } },
  { name: 'inputDataFieldName', type: 'string', default: '', show: { sendBody: [true], contentType: ['binaryData'] } },
  { name: 'rawContentType', type: 'string', default: '', show: { sendBody: [true], contentType: ['raw'] } },
  { name: 'body', type: 'string', default: '', show: { sendBody: [true], contentType: ['raw'] } },
  { name: 'options', type: 'collection', default: {}, values: [
    { name: 'batching', type: 'fixedCollection', multipleValues: false, values: { batch: [
      { name: 'batchSize', type: 'number', minValue: -1, default: 50 },
      { name: 'batchInterval', type: 'number', minValue: 0, default: 1000 },
    ] } },
    { name: 'allowUnauthorizedCerts', type: 'boolean', default: false, noDataExpression: true },
    { name: 'queryParameterArrays', type: 'options', options: ['repeat', 'brackets', 'indices'], default: 'brackets', show: { '/sendQuery': [true] } },
    { name: 'lowercaseHeaders', type: 'boolean', default: true },
    { name: 'redirect', type: 'fixedCollection', multipleValues: false, values: { redirect: [
      { name: 'followRedirects', type: 'boolean', default: true, noDataExpression: true },
      { name: 'maxRedirects', type: 'number', default: 21, show: { followRedirects: [true] } },
    ] } },
    { name: 'response', type: 'fixedCollection', multipleValues: false, values: { response: [
      { name: 'fullResponse', type: 'boolean', default: false },
      { name: 'neverError', type: 'boolean', default: false },
      { name: 'responseFormat', type: 'options', options: ['autodetect', 'file', 'json', 'text'], default: 'autodetect', noDataExpression: true },
      { name: 'outputPropertyName', type: 'string', default: 'data', required: true, show: { responseFormat: ['file', 'text'] } },
    ] } },
    { name: 'pagination', type: 'fixedCollection', multipleValues: false, values: { pagination: [
      { name: 'paginationMode', type: 'options', options: ['off', 'updateAParameterInEachRequest', 'responseContainsNextURL'],
        default: 'updateAParameterInEachRequest', noDataExpression: true },
      { name: 'nextURL', type: 'string', default: '', show: { paginationMode: ['responseContainsNextURL'] } },
      { name: 'parameters', type: 'fixedCollection', multipleValues: true, show: { paginationMode: ['updateAParameterInEachRequest'] },
        values: { parameters: [
          { name: 'type', type: 'options', options: ['body', 'headers', 'qs'], default: 'qs' },
          { name: 'name', type: 'string', default: '' },
          { name: 'value', type: 'string', default: '' },
        ] } },
      { name: 'paginationCompleteWhen', type: 'options', options: ['responseIsEmpty', 'receiveSpecificStatusCodes', 'other'],
        default: 'responseIsEmpty', noDataExpression: true, hide: { paginationMode: ['off'] } },
      { name: 'statusCodesWhenComplete', type: 'string', default: '', noDataExpression: true, show: { paginationCompleteWhen: ['receiveSpecificStatusCodes'] } },
      { name: 'completeExpression', type: 'string', default: '', show: { paginationCompleteWhen: ['other'] } },
      { name: 'limitPagesFetched', type: 'boolean', default: false, noDataExpression: true, hide: { paginationMode: ['off'] } },
      { name: 'maxRequests', type: 'number', default: 100, noDataExpression: true, show: { limitPagesFetched: [true] } },
      { name: 'requestInterval', type: 'number', default: 0, minValue: 0, hide: { paginationMode: ['off'] } },
    ] } },
    { name: 'proxy', type: 'string', default: '' },
    { name: 'timeout', type: 'number', minValue: 1, default: 10000 },
  ] },
];

const ifV2 = [
  { name: 'conditions', type: 'filter', default: {} },
  { name: 'looseTypeValidation', type: 'boolean', default: false, show: { '@version': [2.1, 2.2] } },
  { name: 'options', type: 'collection', default: {}, values: [
    { name: 'ignoreCase', type: 'boolean', default: true },
    { name: 'looseTypeValidation', type: 'boolean', default: false, show: { '@version': [2] } },
  ] },
];

const code = [
  { name: 'mode', type: 'options', options: ['runOnceForAllItems', 'runOnceForEachItem'], default: 'runOnceForAllItems', noDataExpression: true },
  { name: 'language', type: 'options', options: ['javaScript', 'python', 'pythonNative'], default: 'javaScript', noDataExpression: true,
    show: { '@version': [2] } },
  { name: 'jsCode', type: 'string', default: '', noDataExpression: true, show: { language: ['javaScript'] } },
  { name: 'pythonCode', type: 'string', default: '', noDataExpression: true, show: { language: ['python', 'pythonNative'] } },
  { name: 'notice', type: 'notice' },
];

const splitInBatches = [
  { name: 'splitInBatchesNotice', type: 'notice' },
  { name: 'batchSize', type: 'number', minValue: 1, default: 1 },
  { name: 'options', type: 'collection', default: {}, values: [{ name: 'reset', type: 'boolean', default: false }] },
];

export const nodeTypes = {
  'n8n-nodes-base.manualTrigger': { versions: [1], properties: [{ name: 'notice', type: 'notice' }], credentials: [] },
  'n8n-nodes-base.code': { versions: [1, 2], properties: code, credentials: [] },
  'n8n-nodes-base.splitInBatches': { versions: [3], properties: splitInBatches, credentials: [] },
  'n8n-nodes-base.if': { versions: [2, 2.1, 2.2], properties: ifV2, credentials: [] },
  // Credentials: the generic type chosen by genericAuthType, when authentication says so.
  'n8n-nodes-base.httpRequest': { versions: [3, 4, 4.1, 4.2, 4.3], properties: httpRequest,
    credentials: (parameters) => (parameters.authentication === 'genericCredentialType' ? [parameters.genericAuthType] : []) },
};

// The IF node's operators (the editor's FilterConditions catalogue): type -> operation ->
// { single: the operator takes no right value (the editor stores `singleValue: true`),
//   right: the right value's type when it is not the left's }.
export const filterOperators = {
  string: { exists: { single: true }, notExists: { single: true }, empty: { single: true }, notEmpty: { single: true }, equals: {}, notEquals: {},
            contains: {}, notContains: {}, startsWith: {}, notStartsWith: {}, endsWith: {}, notEndsWith: {}, regex: {}, notRegex: {} },
  number: { exists: { single: true }, notExists: { single: true }, equals: {}, notEquals: {}, gt: {}, lt: {}, gte: {}, lte: {} },
  dateTime: { exists: { single: true }, notExists: { single: true }, equals: {}, notEquals: {}, after: {}, before: {}, afterOrEquals: {},
              beforeOrEquals: {} },
  boolean: { exists: { single: true }, notExists: { single: true }, true: { single: true }, false: { single: true }, equals: {}, notEquals: {} },
  array: { exists: { single: true }, notExists: { single: true }, empty: { single: true }, notEmpty: { single: true },
           contains: { right: 'any' }, notContains: { right: 'any' }, lengthEquals: { right: 'number' }, lengthNotEquals: { right: 'number' },
           lengthGt: { right: 'number' }, lengthLt: { right: 'number' }, lengthGte: { right: 'number' }, lengthLte: { right: 'number' } },
  object: { exists: { single: true }, notExists: { single: true }, empty: { single: true }, notEmpty: { single: true } },
};

// Node settings n8n reads besides `parameters` (Workflow.ts, WorkflowExecute.ts).
const settings = {
  id: 'string', name: 'string', type: 'string', typeVersion: 'number', position: 'position', parameters: 'object', credentials: 'object',
  disabled: 'boolean', notes: 'string', notesInFlow: 'boolean', retryOnFail: 'boolean', maxTries: 'number', waitBetweenTries: 'number',
  alwaysOutputData: 'boolean', executeOnce: 'boolean', onError: 'onError', continueOnFail: 'boolean', webhookId: 'string',
};
const onErrorValues = ['stopWorkflow', 'continueRegularOutput', 'continueErrorOutput'];

function shown(property, siblings, root, version) {
  const matches = (conditions) => Object.entries(conditions).every(([key, values]) => {
    const value = key === '@version' ? version : key.startsWith('/') ? root[key.slice(1)] : siblings[key];
    return values.includes(value);
  });
  if (property.show && !matches(property.show)) return false;
  if (property.hide && matches(property.hide)) return false;
  return true;
}

// The value of parameter `name` as n8n reads it: the stored one, else the declared default.
function withDefaults(properties, values, root, version) {
  const effective = { ...values };
  for (let pass = 0; pass < 3; pass++) {
    for (const property of properties) {
      if (effective[property.name] === undefined && property.default !== undefined && !(property.default instanceof Object)
          && shown(property, effective, root, version)) effective[property.name] = property.default;
    }
  }
  return effective;
}

function checkValue(property, value, path, problems, root, version) {
  const allowsExpression = !property.noDataExpression;
  if (expression(value)) {
    if (!allowsExpression || ['fixedCollection', 'collection', 'filter'].includes(property.type)) {
      problems.push(`${path}: takes no expression`);
    }
    return;
  }
  switch (property.type) {
    case 'string':
    case 'credentialsSelect':
      if (typeof value !== 'string') problems.push(`${path}: must be a string, is ${JSON.stringify(value)}`);
      else if (property.required && value === '') problems.push(`${path}: is required`);
      else if (property.options && !property.options.includes(value)) problems.push(`${path}: must be one of ${property.options.join(', ')}`);
      break;
    case 'options':
      if (!property.options.includes(value)) problems.push(`${path}: must be one of ${property.options.join(', ')}, is ${JSON.stringify(value)}`);
      break;
    case 'boolean':
      if (typeof value !== 'boolean') problems.push(`${path}: must be true or false, is ${JSON.stringify(value)}`);
      break;
    case 'number':
      if (typeof value !== 'number' || Number.isNaN(value)) problems.push(`${path}: must be a number, is ${JSON.stringify(value)}`);
      else if (property.minValue !== undefined && value < property.minValue) problems.push(`${path}: must be at least ${property.minValue}`);
      break;
    case 'json':
      if (typeof value !== 'string' && (typeof value !== 'object' || value === null)) problems.push(`${path}: must be JSON text or an object`);
      break;
    case 'collection':
      if (typeof value !== 'object' || value === null || Array.isArray(value)) { problems.push(`${path}: must be an object`); break; }
      checkProperties(property.values, value, path, problems, root, version);
      break;
    case 'fixedCollection': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        problems.push(`${path}: must be an object of ${Object.keys(property.values).map((name) => `{"${name}": ${property.multipleValues ? '[…]' : '{…}'}}`).join(' or ')}`
          + ` (n8n reads ${path}.${Object.keys(property.values)[0]}), is ${Array.isArray(value) ? 'a list' : JSON.stringify(value)}`);
        break;
      }
      for (const [name, entries] of Object.entries(value)) {
        const fields = property.values[name];
        if (!fields) { problems.push(`${path}.${name}: is not one of ${Object.keys(property.values).join(', ')}`); continue; }
        if (property.multipleValues) {
          if (!Array.isArray(entries)) { problems.push(`${path}.${name}: must be a list`); continue; }
          entries.forEach((entry, index) => checkProperties(fields, entry, `${path}.${name}[${index}]`, problems, root, version));
        } else {
          if (typeof entries !== 'object' || entries === null || Array.isArray(entries)) { problems.push(`${path}.${name}: must be an object`); continue; }
          checkProperties(fields, entries, `${path}.${name}`, problems, root, version);
        }
      }
      break;
    }
    case 'filter':
      checkFilter(value, path, problems);
      break;
    default:
      problems.push(`${path}: a ${property.type} parameter holds no value`);
  }
}

function checkProperties(properties, values, path, problems, root, version) {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) { problems.push(`${path}: must be an object`); return; }
  const effective = withDefaults(properties, values, root, version);
  for (const [name, value] of Object.entries(values)) {
    const candidates = properties.filter((property) => property.name === name);
    if (candidates.length === 0) { problems.push(`${path}.${name}: is not a parameter of this node (n8n drops it)`); continue; }
    const property = candidates.find((candidate) => shown(candidate, effective, root, version));
    if (!property) { problems.push(`${path}.${name}: is not shown with these settings (n8n ignores it)`); continue; }
    checkValue(property, value, `${path}.${name}`, problems, root, version);
  }
  for (const property of properties) {
    if (property.required && values[property.name] === undefined && shown(property, effective, root, version)
        && (property.default === undefined || property.default === '')) {
      problems.push(`${path}.${property.name}: is required`);
    }
  }
}

function checkFilter(value, path, problems) {
  if (typeof value !== 'object' || value === null) { problems.push(`${path}: must be an object`); return; }
  if (!['and', 'or'].includes(value.combinator)) problems.push(`${path}.combinator: must be and or or`);
  if (!Array.isArray(value.conditions)) { problems.push(`${path}.conditions: must be a list`); return; }
  value.conditions.forEach((condition, index) => {
    const at = `${path}.conditions[${index}]`;
    const operator = condition.operator || {};
    const known = filterOperators[operator.type]?.[operator.operation];
    if (!known) { problems.push(`${at}.operator: ${operator.type}.${operator.operation} is not an operator of n8n's IF node`); return; }
    if (known.single && operator.singleValue !== true) {
      problems.push(`${at}.operator: ${operator.type} "${operator.operation}" takes no right value; the editor stores singleValue: true`);
    }
  });
}

// The workflow's problems as n8n would find them before or while running it; empty when
// it runs. Type rules of the IF conditions are also checked here, with unresolved
// expressions passing, as n8n's editor checks them (validateFilterParameter).
export function validateWorkflow(workflow) {
  const problems = [];
  for (const node of workflow.nodes) {
    const at = `node "${node.name}"`;
    for (const [key, value] of Object.entries(node)) {
      const kind = settings[key];
      if (!kind) { problems.push(`${at}: ${key} is not a node setting n8n reads`); continue; }
      if (kind === 'position' && !(Array.isArray(value) && value.length === 2 && value.every(Number.isFinite))) problems.push(`${at}: position must be [x, y]`);
      else if (kind === 'onError' && !onErrorValues.includes(value)) problems.push(`${at}: onError must be one of ${onErrorValues.join(', ')}`);
      else if (!['position', 'onError'].includes(kind) && (kind === 'object' ? typeof value !== 'object' || value === null : typeof value !== kind)) {
        problems.push(`${at}: ${key} must be a ${kind}`);
      }
    }
    if (node.retryOnFail && !(node.maxTries >= 2 && node.maxTries <= 5)) problems.push(`${at}: maxTries must be from 2 to 5 (n8n clamps it)`);
    if (node.waitBetweenTries !== undefined && !(node.waitBetweenTries >= 0 && node.waitBetweenTries <= 5000)) {
      problems.push(`${at}: waitBetweenTries must be from 0 to 5000 ms (n8n clamps it)`);
    }
    const type = nodeTypes[node.type];
    if (!type) { problems.push(`${at}: type ${node.type} is not one the replay knows n8n's definition of`); continue; }
    if (!type.versions.includes(node.typeVersion)) { problems.push(`${at}: ${node.type} has no version ${node.typeVersion}`); continue; }
    checkProperties(type.properties, node.parameters, `${at} parameters`, problems, node.parameters, node.typeVersion);
    const wanted = typeof type.credentials === 'function' ? type.credentials(node.parameters) : type.credentials;
    for (const name of Object.keys(node.credentials || {})) {
      if (!wanted.includes(name)) problems.push(`${at}: credential ${name} is not used with these settings`);
      const credential = node.credentials[name];
      if (typeof credential?.name !== 'string' || credential.name === '') problems.push(`${at}: credential ${name} must name a credential`);
    }
    for (const name of wanted) if (!node.credentials?.[name]) problems.push(`${at}: needs a ${name} credential`);
    if (node.type === 'n8n-nodes-base.if') {
      const options = { typeValidation: ifTypeValidation(node) };
      (node.parameters.conditions?.conditions || []).forEach((condition, index) => {
        const error = filterTypeError(condition, options, { unresolved: true, index, item: 0 });
        if (error) problems.push(`${at} parameters.conditions.conditions[${index}]: ${error}`);
      });
    }
  }
  const names = new Set(workflow.nodes.map((node) => node.name));
  for (const [source, outputs] of Object.entries(workflow.connections || {})) {
    if (!names.has(source)) problems.push(`connections: ${source} is not a node`);
    for (const target of (outputs.main || []).flat()) if (!names.has(target.node)) problems.push(`connections: ${source} -> ${target.node} is not a node`);
  }
  return problems;
}

// strict unless the node says loose (options.looseTypeValidation before 2.1, looseTypeValidation after).
export function ifTypeValidation(node) {
  const loose = node.typeVersion < 2.1 ? node.parameters.options?.looseTypeValidation : node.parameters.looseTypeValidation;
  return loose ? 'loose' : 'strict';
}

// TypeValidation.ts's checks for a filter value: the parsed value, or an error.
function parseValue(value, type, strict) {
  if (type === 'any' || value === null || value === undefined) return { valid: true, value };
  if (type === 'boolean' && !strict) return { valid: true, value: Boolean(value) };
  switch (type) {
    case 'string':
      if (strict && typeof value !== 'string') return { valid: false };
      return { valid: true, value: typeof value === 'object' ? JSON.stringify(value) : String(value) };
    case 'number':
      if (strict && typeof value !== 'number') return { valid: false };
      return Number.isNaN(Number(value)) ? { valid: false } : { valid: true, value: Number(value) };
    case 'boolean':
      if (strict && typeof value !== 'boolean') return { valid: false };
      return { valid: true, value };
    case 'array':
      if (strict && !Array.isArray(value)) return { valid: false };
      return Array.isArray(value) ? { valid: true, value } : { valid: false };
    case 'object':
      if (strict && (typeof value !== 'object' || Array.isArray(value))) return { valid: false };
      return { valid: true, value };
    case 'dateTime': {
      const time = new Date(value);
      return Number.isNaN(time.getTime()) ? { valid: false } : { valid: true, value: time };
    }
    default:
      return { valid: true, value };
  }
}

const article = (noun) => ('aeiou'.includes(noun.charAt(0)) ? 'an ' : 'a ') + noun;

// FilterParameter.ts's parseFilterConditionValues: the message n8n stops with, or null.
export function filterTypeError(condition, options, { unresolved = false, index = 0, item = 0 } = {}) {
  const strict = options.typeValidation === 'strict';
  const { operator } = condition;
  const rightType = filterOperators[operator.type]?.[operator.operation]?.right ?? operator.rightType ?? operator.type;
  const left = parseValue(condition.leftValue, operator.type, strict);
  const right = parseValue(condition.rightValue, rightType, strict);
  const leftValid = left.valid || (unresolved && expression(condition.leftValue));
  const rightValid = right.valid || !!operator.singleValue || (unresolved && expression(condition.rightValue));
  const message = (type, value) => (strict
    ? `Wrong type: '${String(value)}' is ${article(typeof value)} but was expecting ${article(type)} [condition ${index}, item ${item}]`
    : `Conversion error: the ${typeof value} '${String(value)}' can't be converted to ${article(type)} [condition ${index}, item ${item}]`);
  if (!leftValid) return message(operator.type, condition.leftValue);
  if (!rightValid) return message(rightType, condition.rightValue);
  return null;
}

// FilterParameter.ts's executeFilterCondition for the operators above.
export function filterPasses(condition, options) {
  const strict = options.typeValidation === 'strict';
  const { operator } = condition;
  const rightType = filterOperators[operator.type]?.[operator.operation]?.right ?? operator.rightType ?? operator.type;
  let left = parseValue(condition.leftValue, operator.type, strict).value;
  let right = parseValue(condition.rightValue, rightType, strict).value;
  const exists = left !== undefined && left !== null;
  if (operator.operation === 'exists') return exists;
  if (operator.operation === 'notExists') return !exists;
  if (operator.type === 'string' && !options.caseSensitive) {
    if (typeof left === 'string') left = left.toLocaleLowerCase();
    if (typeof right === 'string' && !['regex', 'notRegex'].includes(operator.operation)) right = right.toLocaleLowerCase();
  }
  const text = (value) => value ?? '';
  switch (`${operator.type}.${operator.operation}`) {
    case 'string.empty': return text(left).length === 0;
    case 'string.notEmpty': return text(left).length !== 0;
    case 'string.equals': return text(left) === text(right);
    case 'string.notEquals': return text(left) !== text(right);
    case 'string.contains': return text(left).includes(text(right));
    case 'string.notContains': return !text(left).includes(text(right));
    case 'string.startsWith': return text(left).startsWith(text(right));
    case 'string.endsWith': return text(left).endsWith(text(right));
    case 'number.equals': return left === right;
    case 'number.notEquals': return left !== right;
    case 'number.gt': return left > right;
    case 'number.lt': return left < right;
    case 'number.gte': return left >= right;
    case 'number.lte': return left <= right;
    case 'boolean.true': return left;
    case 'boolean.false': return !left;
    case 'boolean.equals': return left === right;
    case 'boolean.notEquals': return left !== right;
    case 'array.empty': return (left ?? []).length === 0;
    case 'array.notEmpty': return (left ?? []).length !== 0;
    case 'array.contains': return (left ?? []).includes(right);
    case 'array.lengthGt': return (left ?? []).length > right;
    default: throw new Error(`IF operator ${operator.type}.${operator.operation} is not replayed`);
  }
}
