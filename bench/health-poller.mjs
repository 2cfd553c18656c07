// A worker thread of bench/stall.mjs: polls GET /v2/health one request at a time on its own keep-alive
// connection and records each latency, so the main thread building and sending large bodies never skews
// what a second client would see. Messages: {start} clears the samples, {stop} sends them back.
import { Agent, request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { url, key, intervalMs } = workerData;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
let samples = [];
let recording = false;
let running = true;

function poll() {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = request(`${url}/v2/health`, { agent, headers: { 'x-api-key': key } }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - started));
    });
    req.on('error', () => resolve(performance.now() - started));
    req.end();
  });
}

parentPort.on('message', (message) => {
  if (message === 'start') {
    samples = [];
    recording = true;
  } else if (message === 'stop') {
    recording = false;
    parentPort.postMessage(samples);
  } else if (message === 'exit') {
    running = false;
  }
});

while (running) {
  const latency = await poll();
  if (recording) samples.push(latency);
  await new Promise((resolve) => setTimeout(resolve, intervalMs));
}
agent.destroy();
