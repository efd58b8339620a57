/**
 * The client half of the storage benchmark, in its own process so that the server's memory is
 * measured alone. `presigned`: the same through upload-url, a PUT to S3 and the finalising POST.
 * `upload`: uploads a file from disk (a multipart body written by hand over node:http, the file
 * streamed in 1 MiB reads, as curl -F does) and prints {uploadMs, cid, size}. `download <cid> <size>`:
 * downloads it over node:http (following the redirect, as curl -L), hashes and checks it, then
 * downloads and checks it again (the steady state), and prints {downloadMs, download2Ms, redirected} and the
 * time each took to its first answer (the API's: the 302 or the bytes' headers), {answerMs, answer2Ms}.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, openAsBlob, readFileSync, statSync } from 'node:fs';
import { type IncomingMessage, request } from 'node:http';

const [base, cookie, path, proofFile, checksum, mode = 'upload', cid = '', size = '0'] = process.argv.slice(2) as string[];
const p = JSON.parse(readFileSync(proofFile!, 'utf8')) as { proof: unknown; publicSignals: string[]; commitment: string };
const headers = { cookie: `shroud_session=${cookie}` };
const proofHeaders = { ...headers, 'x-zk-proof': JSON.stringify(p.proof), 'x-zk-public-signals': JSON.stringify(p.publicSignals) };

if (mode === 'upload') {
  // As a terminal client (curl -F) sends it: the fields, then the file streamed from disk in
  // 1 MiB reads, with the body's length known up front (no chunked framing).
  const boundary = `----shroud-bench-${randomBytes(12).toString('hex')}`;
  const field = (name: string, value: string) => `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head = Buffer.from(
    field('proof', JSON.stringify(p.proof)) +
      field('publicSignals', JSON.stringify(p.publicSignals)) +
      field('commitment', p.commitment) +
      field('checksum', checksum!) +
      `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="bench.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = statSync(path!).size;
  const t = performance.now();
  const { status, body } = await new Promise<{ status: number; body: string }>((ok, fail) => {
    const req = request(new URL('/api/storage/upload', base), {
      method: 'POST',
      headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + size + tail.length },
    });
    req.on('error', fail);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => ok({ status: res.statusCode!, body: text }));
    });
    req.write(head);
    const file = createReadStream(path!, { highWaterMark: 1024 * 1024 });
    file.on('error', fail);
    file.on('end', () => req.end(tail));
    file.pipe(req, { end: false });
  });
  const uploadMs = performance.now() - t;
  const upJson = JSON.parse(body) as { cid: string; size: number };
  if (status !== 201) throw new Error(`upload: ${status} ${body}`);
  console.log(JSON.stringify({ uploadMs, cid: upJson.cid, size: upJson.size }));
} else if (mode === 'presigned') {
  // The way a large file goes on AWS (API Gateway takes at most 10 MB): upload-url, PUT, finalise.
  const size = (await openAsBlob(path!)).size;
  const t = performance.now();
  const url = await fetch(new URL('/api/storage/upload-url', base), {
    method: 'POST',
    body: JSON.stringify({ size }),
    headers: { ...headers, 'content-type': 'application/json' },
  });
  const u = (await url.json()) as { uploadId: string; url: string; headers: Record<string, string> };
  if (url.status !== 200) throw new Error(`upload-url: ${url.status} ${JSON.stringify(u)}`);
  const put = await fetch(u.url, { method: 'PUT', body: await openAsBlob(path!), headers: u.headers });
  if (!put.ok) throw new Error(`presigned PUT: ${put.status}`);
  const putMs = performance.now() - t;
  const form = new FormData();
  form.append('proof', JSON.stringify(p.proof));
  form.append('publicSignals', JSON.stringify(p.publicSignals));
  form.append('commitment', p.commitment);
  form.append('checksum', checksum!);
  form.append('uploadId', u.uploadId);
  const fin = await fetch(new URL('/api/storage/upload', base), { method: 'POST', body: form, headers });
  const finJson = (await fin.json()) as { cid: string; size: number };
  const uploadMs = performance.now() - t;
  if (fin.status !== 201) throw new Error(`finalise: ${fin.status} ${JSON.stringify(finJson)}`);
  console.log(JSON.stringify({ uploadMs, putMs, cid: finJson.cid, size: finJson.size }));
} else {
  // As a terminal client (curl -L) reads it: node:http, the redirect followed, the body hashed as it comes.
  const get = (url: string | URL, h: Record<string, string> = {}) =>
    new Promise<IncomingMessage>((ok, fail) => request(url, { headers: h }, ok).on('error', fail).end());
  let answeredAt = 0;
  const fetchFile = async () => {
    const first = await get(new URL(`/api/storage/download/${cid}`, base), proofHeaders);
    answeredAt = performance.now();
    const res = first.statusCode === 302 ? (first.resume(), await get(first.headers.location!)) : first;
    const hash = createHash('sha256');
    let got = 0;
    for await (const chunk of res as AsyncIterable<Buffer>) {
      hash.update(chunk);
      got += chunk.length;
    }
    if (`sha256:${hash.digest('hex')}` !== checksum || got !== Number(size)) throw new Error(`download: bytes differ (${first.statusCode})`);
    return first.statusCode === 302;
  };
  let t = performance.now();
  const redirected = await fetchFile();
  const downloadMs = performance.now() - t;
  const answerMs = answeredAt - t;
  // A second download: the redirect copy now exists, so this is the steady state.
  t = performance.now();
  await fetchFile();
  const download2Ms = performance.now() - t;
  const answer2Ms = answeredAt - t;
  console.log(JSON.stringify({ downloadMs, download2Ms, redirected, answerMs, answer2Ms }));
}
