/**
 * AWS Signature Version 4 as S3 checks it, for the local S3 servers: s3rver parses a V4
 * signature and never computes it ("unimplemented"), so locally any signature was accepted — a
 * presigned URL's key, its signed headers (Content-Length, If-None-Match) and its expiry bound
 * nothing, and a client that signs wrongly worked here and failed on AWS. `checkSigV4` computes
 * the signature of a request from its method, path, query, signed headers and declared payload
 * hash, and compares. Plain CommonJS, like the worker that loads it.
 *
 * Not checked (as S3 does, but nothing here depends on it): the payload against
 * x-amz-content-sha256, the credential scope's region, the clock skew of header-signed requests.
 */
'use strict';

const crypto = require('node:crypto');

const ALGORITHM = 'AWS4-HMAC-SHA256';
/** S3 refuses presigned URLs valid for more than a week. */
const MAX_EXPIRES_SECONDS = 7 * 24 * 3600;

/** RFC 3986 encoding, as SigV4 wants it: everything but A-Z a-z 0-9 - . _ ~ */
const encode = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const hmac = (key, data) => crypto.createHmac('sha256', key).update(data, 'utf8').digest();
const sha256Hex = (s) => crypto.createHash('sha256').update(s, 'utf8').digest('hex');

class SigV4Error extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

function decode(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new SigV4Error('AuthorizationQueryParametersError', 'The request URL is not correctly encoded.');
  }
}

/** `a=b&c` → [['a','b'], ['c','']], decoded ('+' is a plus: clients encode spaces as %20). */
function parseQuery(raw) {
  if (!raw) return [];
  return raw
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      return at < 0 ? [decode(pair), ''] : [decode(pair.slice(0, at)), decode(pair.slice(at + 1))];
    });
}

/** `Credential=AKID/20261126/us-east-1/s3/aws4_request, SignedHeaders=a;b, Signature=hex` */
function parseAuthorization(header) {
  const fields = {};
  for (const part of header.slice(ALGORITHM.length).split(',')) {
    const at = part.indexOf('=');
    if (at > 0) fields[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  if (!fields.Credential || !fields.SignedHeaders || !fields.Signature) {
    throw new SigV4Error('AuthorizationHeaderMalformed', 'The authorization header is malformed.');
  }
  return { credential: fields.Credential, signedHeaders: fields.SignedHeaders, signature: fields.Signature };
}

/**
 * The V4 signature of `req` (a Node IncomingMessage) checked, or nothing to check: null when the
 * request carries no V4 signature (s3rver handles anonymous and V2 requests itself). Throws
 * SigV4Error (`code` is S3's error code) when the signature is malformed, does not match, or the
 * presigned URL has expired. `secretOf(accessKeyId)` gives the secret, undefined when unknown.
 */
function checkSigV4(req, secretOf, nowMs) {
  const url = req.url || '/';
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  const params = parseQuery(q < 0 ? '' : url.slice(q + 1));
  const param = (name) => params.find(([k]) => k === name)?.[1];
  const authorization = req.headers.authorization;

  let credential, signedHeaders, signature, amzDate, payloadHash, presigned;
  if (typeof authorization === 'string' && authorization.startsWith(`${ALGORITHM} `)) {
    ({ credential, signedHeaders, signature } = parseAuthorization(authorization));
    amzDate = req.headers['x-amz-date'];
    payloadHash = req.headers['x-amz-content-sha256'];
    if (!amzDate || !payloadHash) throw new SigV4Error('AuthorizationHeaderMalformed', 'x-amz-date and x-amz-content-sha256 are required.');
    presigned = false;
  } else if (param('X-Amz-Algorithm') !== undefined) {
    if (param('X-Amz-Algorithm') !== ALGORITHM) throw new SigV4Error('AuthorizationQueryParametersError', `X-Amz-Algorithm only supports "${ALGORITHM}"`);
    credential = param('X-Amz-Credential');
    signedHeaders = param('X-Amz-SignedHeaders');
    signature = param('X-Amz-Signature');
    amzDate = param('X-Amz-Date');
    const expires = Number(param('X-Amz-Expires'));
    if (!credential || !signedHeaders || !signature || !amzDate || !Number.isInteger(expires) || expires < 1 || expires > MAX_EXPIRES_SECONDS) {
      throw new SigV4Error(
        'AuthorizationQueryParametersError',
        'Query-string authentication version 4 requires X-Amz-Credential, X-Amz-SignedHeaders, X-Amz-Signature, X-Amz-Date and X-Amz-Expires (1 s to 7 days).',
      );
    }
    if (nowMs > dateOf(amzDate) + expires * 1000) throw new SigV4Error('AccessDenied', 'Request has expired');
    payloadHash = param('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD';
    presigned = true;
  } else return null;

  const [accessKeyId, date, region, service, terminator] = credential.split('/');
  if (!accessKeyId || !date || !region || !service || terminator !== 'aws4_request' || !amzDate.startsWith(date)) {
    throw new SigV4Error(presigned ? 'AuthorizationQueryParametersError' : 'AuthorizationHeaderMalformed', 'The credential is malformed.');
  }
  const secret = secretOf(accessKeyId);
  if (secret === undefined) throw new SigV4Error('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');

  const headerNames = signedHeaders.split(';');
  if (!headerNames.includes('host')) throw new SigV4Error('AccessDenied', 'The host header must be signed.');
  const canonicalHeaders = headerNames
    .map((name) => {
      const value = req.headers[name];
      // A signed header the request does not carry cannot match (S3 answers SignatureDoesNotMatch).
      return `${name}:${value === undefined ? '' : String(value).trim().replace(/\s+/g, ' ')}\n`;
    })
    .join('');
  const canonicalQuery = params
    .filter(([k]) => !(presigned && k === 'X-Amz-Signature'))
    .map(([k, v]) => [encode(k), encode(v)])
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalPath = rawPath
    .split('/')
    .map((segment) => encode(decode(segment)))
    .join('/');
  const canonicalRequest = [req.method, canonicalPath, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = [ALGORITHM, amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  const expected = crypto.createHmac('sha256', key).update(stringToSign, 'utf8').digest();
  const given = /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) {
    throw new SigV4Error(
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    );
  }
  return { accessKeyId };
}

/** `20261126T062132Z` → ms since the epoch. */
function dateOf(amzDate) {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!m) throw new SigV4Error('AuthorizationQueryParametersError', 'X-Amz-Date must be in the ISO8601 basic format (yyyyMMddTHHmmssZ).');
  return Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
}

module.exports = { checkSigV4, SigV4Error };
