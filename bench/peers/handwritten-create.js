// A create's input in the hand-written peer, by the service's rules (README: POST /api/products):
// identity coding and a JSON media type (415), the body within 16 KiB (413), strict UTF-8 JSON (400),
// then every field error at once (422): name trimmed 1..200 code points with no control characters
// or lone surrogates, priceInCents an integer 0..2147483647, status 1 or 2, unknown members refused.

const BODY_LIMIT = 16_384;
const MAX_PRICE = 2_147_483_647;
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const INVALID_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]|\p{Cs}/u;
const FIELDS = new Set(['name', 'priceInCents', 'status']);

/** An error the peer answers with: its status, code, detail, and field errors or headers. */
const failure = (status, code, detail, more = {}) => ({ status, code, detail, ...more });
const ACCEPT_IDENTITY = ['accept-encoding', 'identity'];

function isIdentityCoding(header) {
  if (header === undefined) return true;
  return header.split(',').every((member) => {
    const coding = member.trim().toLowerCase();
    return coding === '' || coding === 'identity';
  });
}

function isJsonType(header) {
  if (header === undefined) return false;
  const [type, ...parameters] = header.split(';');
  if (type.trim().toLowerCase() !== 'application/json') return false;
  return parameters.every((parameter) => {
    if (parameter.trim() === '') return true;
    const equals = parameter.indexOf('=');
    const unquoted = parameter.slice(equals + 1).trim().replace(/^"(.*)"$/, '$1');
    return equals !== -1 && parameter.slice(0, equals).trim().toLowerCase() === 'charset' && unquoted.toLowerCase() === 'utf-8';
  });
}

/** The refusal of a body the peer cannot read, judged from the headers alone; null when it may be read. */
export function refuseBodyHeaders(req) {
  if (!isIdentityCoding(req.headers['content-encoding'])) {
    return failure(415, 'unsupported_media_type', 'The request body has a Content-Encoding other than identity; send it uncompressed, with no Content-Encoding.', { headers: ACCEPT_IDENTITY });
  }
  if (!isJsonType(req.headers['content-type'])) {
    return failure(415, 'unsupported_media_type', 'The request body must be sent as application/json (a charset parameter may only be utf-8).', { headers: ACCEPT_IDENTITY });
  }
  return null;
}

const tooLarge = () => failure(413, 'payload_too_large', `The request body is larger than ${BODY_LIMIT} bytes.`);

/** Reads the body within the limit; calls back with (failure) or (null, buffer). */
export function readBody(req, done) {
  if (Number(req.headers['content-length']) > BODY_LIMIT) return done(tooLarge());
  const chunks = [];
  let size = 0;
  let over = false;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size > BODY_LIMIT && !over) {
      over = true;
      req.pause();
      done(tooLarge());
    } else if (!over) chunks.push(chunk);
  });
  req.on('end', () => over || done(null, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
  req.on('error', () => over || done(failure(400, 'bad_request', 'The request body ended before it was complete.')));
}

/** The parsed body, or a 400 invalid_json failure. */
export function parseBody(buffer) {
  if (buffer.length === 0) return { failure: failure(400, 'invalid_json', 'The request body is empty.') };
  let text;
  try {
    text = UTF8.decode(buffer);
  } catch {
    return { failure: failure(400, 'invalid_json', 'The request body is not valid UTF-8.') };
  }
  try {
    return { body: JSON.parse(text) };
  } catch {
    return { failure: failure(400, 'invalid_json', 'The request body is not valid JSON.') };
  }
}

const fieldError = (field, code, detail) => ({ pointer: `/${field.replaceAll('~', '~0').replaceAll('/', '~1')}`, code, detail });

function checkName(value, errors) {
  if (typeof value !== 'string') return void errors.push(fieldError('name', 'type', 'name must be a string'));
  const trimmed = value.trim();
  let length = 0;
  for (const _ of trimmed) length++;
  if (length < 1) errors.push(fieldError('name', 'too_short', 'name must not be empty'));
  else if (length > 200) errors.push(fieldError('name', 'too_long', 'name must be at most 200 characters'));
  if (INVALID_CHARACTERS.test(trimmed)) errors.push(fieldError('name', 'invalid_characters', 'name must not contain control characters or lone surrogates'));
  return trimmed;
}

function checkPrice(value, errors) {
  if (typeof value !== 'number') errors.push(fieldError('priceInCents', 'type', 'priceInCents must be a number'));
  else if (Number.isFinite(value) && !Number.isInteger(value)) errors.push(fieldError('priceInCents', 'not_integer', 'priceInCents must be an integer'));
  else if (value < 0) errors.push(fieldError('priceInCents', 'too_small', 'priceInCents must be at least 0'));
  else if (value > MAX_PRICE) errors.push(fieldError('priceInCents', 'too_large', `priceInCents must be at most ${MAX_PRICE}`));
  return value;
}

function checkStatus(value, errors) {
  if (value === 1 || value === 2) return value;
  errors.push(fieldError('status', typeof value === 'number' ? 'invalid_enum' : 'type', 'status must be one of 1, 2'));
  return 1;
}

/** The new product ({ name, priceInCents, status }) or a 422 failure with every field error, in the service's order. */
export function validateProduct(body) {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { failure: failure(422, 'validation_failed', 'The request body has 1 invalid field.', { errors: [{ pointer: '', code: 'type', detail: 'The request body must be a JSON object.' }] }) };
  }
  const errors = [];
  const own = (field) => (Object.hasOwn(body, field) ? body[field] : undefined);
  const [name, price, status] = [own('name'), own('priceInCents'), own('status')];
  const product = {
    name: name === undefined ? void errors.push(fieldError('name', 'required', 'name is required')) : checkName(name, errors),
    priceInCents: price === undefined ? void errors.push(fieldError('priceInCents', 'required', 'priceInCents is required')) : checkPrice(price, errors),
    status: status === undefined ? 1 : checkStatus(status, errors),
  };
  for (const key of Object.keys(body)) if (!FIELDS.has(key)) errors.push(fieldError(key, 'unknown_field', `${key} is not a known field`));
  if (errors.length === 0) return { product };
  const detail = errors.length === 1 ? 'The request body has 1 invalid field.' : `The request body has ${errors.length} invalid fields.`;
  return { failure: failure(422, 'validation_failed', detail, { errors }) };
}
