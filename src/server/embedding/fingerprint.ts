/**
 * The fingerprint embedders are recorded by: `sha256:` and the hex digest. A module of its own so that the
 * ONNX model's thread, which needs it, does not load the built-in embedder's vectors with embedder-spec.ts.
 */
import { createHash } from 'node:crypto';

export const sha256 = (data: string | Uint8Array): string => `sha256:${createHash('sha256').update(data).digest('hex')}`;
