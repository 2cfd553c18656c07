// A small website on 127.0.0.1 for the =ORGASK tests, in its own process: the Apps Script stand-in's
// UrlFetchApp blocks the jest process while it fetches, so a site served there could never answer.
// The pages come as JSON in FIXTURE_PAGES: {path: {status?, type?, location?, body?}}. GET /__requested
// lists the paths asked for so far (that request not counted). Prints "port N" once it listens.
const http = module.require('node:http');

const pages = JSON.parse(process.env.FIXTURE_PAGES || '{}');
const requested = [];
const server = http.createServer((request, response) => {
  const path = request.url || '/';
  if (path === '/__requested') {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(requested));
    return;
  }
  requested.push(path);
  const page = pages[path.split('?')[0]];
  if (!page) {
    response.writeHead(404, { 'content-type': 'text/html' }).end('<p>not found</p>');
    return;
  }
  const headers = { 'content-type': page.type || 'text/html; charset=utf-8' };
  if (page.location) headers.location = page.location;
  response.writeHead(page.status || 200, headers).end(page.body || '');
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`port ${server.address().port}\n`);
});
// Ends with the test process (its stdin closes), never outliving it.
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
