/** The local engine: the v2 service (and the legacy v1 one) in-process over a columnar store, and the sample dataset. */
export { createDefaultLocalIndex, createLocalIndex, LocalIndex, type LocalIndexOptions } from './local-index.js';
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
export { LegacyService, LegacyError, LEGACY_INDEX, MemoryPitStore, type LegacyCaller, type LegacyOptions, type DownloadContent, type Pit, type PitStore } from './legacy/legacy-service.js';
