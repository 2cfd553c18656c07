// Runs one exported function of a TypeScript module in a worker thread, so a test can stop a call that
// never returns (worker.terminate() interrupts synchronous code; a jest timeout cannot). The sources are
// compiled with SWC as jest compiles them, and `.js` import suffixes map back to the `.ts` files.
const load = (id) => module.require(id);
const { parentPort, workerData } = load('node:worker_threads');
const Module = load('node:module');
const { readFileSync } = load('node:fs');
const swc = load('@swc/core');

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  try {
    return resolve.call(this, request, parent, ...rest);
  } catch (error) {
    if (request.startsWith('.') && request.endsWith('.js')) return resolve.call(this, `${request.slice(0, -3)}.ts`, parent, ...rest);
    throw error;
  }
};
Module._extensions['.ts'] = (compiled, filename) => {
  const options = { filename, jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } };
  compiled._compile(swc.transformSync(readFileSync(filename, 'utf8'), options).code, filename);
};

const { file, name, args } = workerData;
Promise.resolve()
  .then(() => load(file)[name](...args))
  .then(
    (value) => parentPort.postMessage({ ok: true, value }),
    (error) => parentPort.postMessage({ ok: false, error: String(error && error.stack ? error.stack : error) }),
  );
