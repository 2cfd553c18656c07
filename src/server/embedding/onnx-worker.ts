/**
 * The thread an ONNX sentence encoder runs on (onnx-embedder.ts): it loads the model, says its dimensions,
 * then embeds each batch it is sent, one at a time, answering with the vectors as one transferred array.
 * The server's event loop never waits on the model.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { OnnxModel, type OnnxDirectory } from './onnx-model.js';
import type { OnnxReply, OnnxRequest } from './onnx-embedder.js';
import { messageOf } from '../../contract/errors.js';

const port = parentPort;
if (!port) throw new Error('onnx-worker.ts runs as a worker thread');
const send = (reply: OnnxReply, transfer: ArrayBuffer[] = []): void => {
  port.postMessage(reply, transfer);
};

OnnxModel.load(workerData as OnnxDirectory).then(
  (model) => {
    let queue = Promise.resolve();
    port.on('message', (request: OnnxRequest) => {
      queue = queue.then(async () => {
        try {
          const vectors = await model.run(request.texts);
          const data = new Float32Array(vectors.length * model.dims);
          const present = new Uint8Array(vectors.length);
          vectors.forEach((vector, i) => {
            if (!vector) return;
            data.set(vector, i * model.dims);
            present[i] = 1;
          });
          send({ type: 'vectors', id: request.id, data, present }, [data.buffer, present.buffer]);
        } catch (error) {
          send({ type: 'error', id: request.id, message: messageOf(error) });
        }
      });
    });
    send({ type: 'ready', dims: model.dims, loadMs: model.loadMs });
  },
  (error: unknown) => {
    send({ type: 'failed', message: messageOf(error) });
  },
);
