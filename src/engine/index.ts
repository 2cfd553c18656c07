/** The local engine: the v2 service (and the legacy v1 one) in-process over a columnar store, and the sample dataset. */
import { createDefaultEngine, createEngine, Engine, type EngineOptions } from './engine.js';
import type { V1Caller } from './v1/v1-service.js';

export { createDefaultEngine, createEngine, Engine, type EngineOptions };

// The engine's earlier names (it serves the server as well as the spreadsheets' local backend, so
// "local" misled); kept so that code written against them still compiles.
/** @deprecated Use `Engine`. */
export const LocalIndex = Engine;
/** @deprecated Use `Engine`. */
export type LocalIndex = Engine;
/** @deprecated Use `EngineOptions`. */
export type LocalIndexOptions = EngineOptions;
/** @deprecated Use `createEngine`. */
export const createLocalIndex = createEngine;
/** @deprecated Use `createDefaultEngine`. */
export const createDefaultLocalIndex = createDefaultEngine;
export { generateDataset, generateRecords, DEFAULT_DATASET, type GenerateOptions } from './dataset/generate.js';
export { readCsv, readDataFile, readJsonLines, type ReadResult, type RowError } from './dataset/read.js';
export {
  OrganizationRecordSchema,
  RECORD_KEYS,
  type OrganizationRecord,
  type OrganizationRecordInput,
  type Registration,
} from './dataset/record.js';
export { ColumnStore } from './store/store.js';
export { LocationIndex } from './locations/location-index.js';
export { similarity as trigramSimilarity } from './locations/trigram.js';
export { warmRelevance } from './relevance/store-relevance.js';
export { TextIndex } from './relevance/text-index.js';
export { SifGloveEmbedder, type Embedder } from './relevance/embedder.js';
export { LegacyService, LegacyError, LEGACY_INDEX, MemoryPitStore, type LegacyOptions, type DownloadContent, type Pit, type PitStore, type V1Caller, type V1Index } from './v1/v1-service.js';

/** A v1 caller over the engine's own index: what the server's v1 routes hand the legacy service. */
export interface LegacyCaller extends V1Caller {
  index: Engine;
}
