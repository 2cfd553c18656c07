// Performs HTTP requests for the Apps Script harness and prints their responses: the harness calls it with
// execFileSync, which makes each UrlFetchApp.fetch / fetchAll a real, *synchronous* HTTP call, as in
// Apps Script. Input on stdin: [{url, method, headers, contentType, payload, followRedirects}]; output:
// [{status, headers, body}] (a redirect not followed is its own response, Location included, as UrlFetchApp gives it).
let input = '';
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', async () => {
  const requests = JSON.parse(input);
  const responses = await Promise.all(
    requests.map(async (request) => {
      try {
        const headers = { ...(request.headers || {}) };
        if (request.contentType) headers['content-type'] = request.contentType;
        const response = await fetch(request.url, { method: (request.method || 'get').toUpperCase(), headers, body: request.payload, redirect: request.followRedirects === false ? 'manual' : 'follow' });
        return { status: response.status, headers: Object.fromEntries(response.headers.entries()), body: await response.text() };
      } catch (error) {
        return { error: String(error && error.cause ? error.cause.message || error.cause : error) };
      }
    }),
  );
  process.stdout.write(JSON.stringify(responses));
});
