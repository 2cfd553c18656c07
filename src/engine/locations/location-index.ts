/**
 * The location index: ranked name search, listing and lookup over `LocationItem`s, answering the bodies of
 * `GET /locations/search`, `GET /locations` and `GET /locations/{location_id}`.
 *
 * FOLDING. Names and queries are compared in a folded form, never raw:
 *   1. Unicode NFD, then the combining diacritical marks U+0300–U+036F are dropped (é → e, ü → u, ά → α);
 *   2. each remaining character that pg_trgm counts as a word character (letters and digits, see
 *      trigram.ts) is lower-cased with the same per-code-point mapping pg_trgm uses; ß/ẞ → ss, æ → ae,
 *      œ → oe, ø → o, ł → l, đ/ð → d, þ → th, ı → i;
 *   3. every run of other characters (spaces, hyphens, dots, brackets, apostrophes, …) becomes one space,
 *      none at either end: "Halle (Saale)" → "halle saale", "St. Gallen" → "st gallen".
 *   A name whose folding contains ä/ö/ü also gets a second, German-transliterated form (ä → ae, ö → oe,
 *   ü → ue): "München" is indexed as "munchen" and "muenchen". The query is folded both ways too. So
 *   "munchen", "Muenchen", "MÜNCHEN" and "münchen" are all EXACT matches of "München", and
 *   "Strasse" of "Straße". Every (query form, name form) pair is tried; the best result counts.
 *
 * LAYERS. Each item appears at most once, in its best layer, and layers come in this order:
 *   1. exact     — a folded name form equals a folded query form;
 *   2. prefix    — a folded name form starts with a folded query form;
 *   3. substring — a folded name form contains a folded query form elsewhere;
 *   4. fuzzy     — pg_trgm similarity() between a folded query form and a folded name form is >= 0.3
 *                  (pg_trgm's default similarity_threshold, compared as PostgreSQL compares float4 to it).
 *                  This is exactly PostgreSQL's similarity(fold(q), fold(name)); for names and queries
 *                  without diacritics it equals similarity(q, name), since pg_trgm itself lower-cases and
 *                  ignores separators. Folding is what lets the typo "Muenchn" find "München" (0.545
 *                  against "muenchen"; raw pg_trgm gives only 0.143).
 * ORDER within a layer: (fuzzy only) similarity descending; then doc_count descending; then name ascending;
 * then location_id ascending. Names and ids compare by UTF-16 code units (host-independent, unlike
 * localeCompare). Listing uses the same order without the similarity key.
 *
 * ALIASES. A place may have other names (PlaceAliases: exonyms, matched in every layer like its name) and
 * codes (matched exactly only); an item still appears once, in the best layer any of its names reaches.
 *
 * FILTERS. `location_type` keeps items of that type; `parent_id` keeps direct children of that parent
 * (item.parent_id equal to it). Both AND together. Unknown values simply match nothing.
 *
 * SPEED. Folded name forms are concatenated into one string separated by U+0001, so the exact, prefix and
 * substring layers are one `indexOf` scan; fuzzy candidates come from a trigram inverted index (dense
 * trigram id → ascending posting list of name forms, in one Int32Array) accumulated into a reusable counter
 * array, which gives |A ∩ B| directly. When a filter leaves few candidates, they are checked one by one
 * instead (sorted trigram arrays, merge intersection). Scratch arrays are reused; no per-search Sets.
 *
 * Pure and synchronous; no host globals. Items are returned as shallow copies.
 */
import type { LocationItem, LocationListResponse } from '../../contract/v2/locations.js';
import { LOCATION_LIMITS } from '../../contract/v2/locations.js';
import {
  appendTrigramIds,
  isWordChar,
  lowerCodePoint,
  countShared,
  SIMILARITY_THRESHOLD,
  similarityFromCounts,
  sortUnique,
} from './trigram.js';

/**
 * The other names of a place that the search finds it by: `names` as users type them (exonyms such as
 * "Munich" for München), matched like the place's own name in every layer; `codes` (ISO codes such as
 * "DE-BY"), matched exactly only, so that "de" does not make every German state a prefix match.
 */
export interface PlaceAliases {
  names: readonly string[];
  codes: readonly string[];
}

export type PlaceAliasesOf = (item: LocationItem) => PlaceAliases;

const NO_ALIASES: PlaceAliasesOf = () => ({ names: [], codes: [] });

export type LocationMatchLayer = 'exact' | 'prefix' | 'substring' | 'fuzzy';
export const LOCATION_MATCH_LAYERS: readonly LocationMatchLayer[] = ['exact', 'prefix', 'substring', 'fuzzy'];

export interface LocationSearchOptions {
  q: string;
  location_type?: string | null;
  parent_id?: string | null;
  /** Default LOCATION_LIMITS.searchLimitDefault (10). */
  limit?: number;
}

export interface LocationListOptions {
  parent_id?: string | null;
  location_type?: string | null;
  /** Default LOCATION_LIMITS.listLimitDefault (100). */
  limit?: number;
  offset?: number;
}

/** One ranked search result with why it matched; `similarity` is set for the fuzzy layer only. */
export interface LocationMatch {
  item: LocationItem;
  layer: LocationMatchLayer;
  similarity: number | null;
}

// ---------------------------------------------------------------------------------------------------------
// Folding

const COMBINING_FIRST = 0x300;
const COMBINING_LAST = 0x36f;
const COMBINING_DIAERESIS = 0x308;
const EXTRA_FOLDS = new Map<number, string>([
  [0xdf, 'ss'], // ß (ẞ lower-cases to ß first)
  [0xe6, 'ae'], // æ
  [0x153, 'oe'], // œ
  [0xf8, 'o'], // ø
  [0x142, 'l'], // ł
  [0x111, 'd'], // đ
  [0xf0, 'd'], // ð
  [0xfe, 'th'], // þ
  [0x131, 'i'], // ı
]);

/**
 * The folded form of a name or query (see the module comment). With `german`, a diaeresis on a, o or u
 * becomes a following 'e' instead of being dropped.
 */
export function foldLocationName(text: string, german = false): string {
  const s = text.normalize('NFD');
  let out = '';
  let pendingSpace = false;
  let last = 0;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const cp = s.codePointAt(i) ?? 0;
    if (cp > 0xffff) i++; // a surrogate pair: one code point, two code units
    if (cp >= COMBINING_FIRST && cp <= COMBINING_LAST) {
      if (german && cp === COMBINING_DIAERESIS && (last === 0x61 || last === 0x6f || last === 0x75)) {
        out += 'e';
        last = 0x65;
      }
      continue;
    }
    if (!isWordChar(cp)) {
      pendingSpace = true;
      continue;
    }
    if (pendingSpace && out.length > 0) out += ' ';
    pendingSpace = false;
    const lower = lowerCodePoint(cp);
    const extra = EXTRA_FOLDS.get(lower);
    out += extra ?? String.fromCodePoint(lower);
    last = extra === undefined ? lower : 0;
  }
  return out;
}

/** The distinct, non-empty folded forms of a text: plain, and German-transliterated when different. */
function foldedForms(text: string): string[] {
  const plain = foldLocationName(text, false);
  const german = foldLocationName(text, true);
  const forms: string[] = [];
  if (plain) forms.push(plain);
  if (german && german !== plain) forms.push(german);
  return forms;
}

// ---------------------------------------------------------------------------------------------------------
// Ordering

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** doc_count descending, then name ascending, then location_id ascending. */
function compareItems(a: LocationItem, b: LocationItem): number {
  return b.doc_count - a.doc_count || compareCodeUnits(a.name, b.name) || compareCodeUnits(a.location_id, b.location_id);
}

const NO_LAYER = 0;
const EXACT = 1;
const PREFIX = 2;
const SUBSTRING = 3;
const FUZZY = 4;
const SEPARATOR = '\u0001';
/** Below this many candidates (as a share of all items) a filter is evaluated candidate by candidate. */
const DIRECT_SHARE = 1 / 8;
/** Layers with more members than this are read off the global order instead of being sorted. */
const SORT_MAX = 64;

interface QueryForm {
  text: string;
  /** Ascending dense trigram ids known to the index. */
  known: Int32Array;
  /** Size of the query form's whole trigram set (known or not). */
  size: number;
}

export class LocationIndex {
  private static builds = 0;
  /** How many location indexes this process has built (a server builds its own while warming up). */
  static get built(): number {
    return LocationIndex.builds;
  }

  private readonly items: LocationItem[];
  private readonly byId = new Map<string, number>();
  /** rank[item] = position in the global order (doc_count desc, name asc, id asc). */
  private readonly rank: Int32Array;
  /** Item indices in the global order. */
  private readonly order: Int32Array;
  private readonly typeCodes = new Map<string, number>();
  private readonly itemType: Int32Array;
  private readonly parentCodes = new Map<string, number>();
  private readonly itemParent: Int32Array;
  /** Item indices in global order, per type code and per parent code. */
  private readonly byType: Int32Array[] = [];
  private readonly byParent: Int32Array[] = [];

  // Name forms ("docs"): each item has one or two, contiguous, from itemDocStart[i] to itemDocStart[i + 1].
  private readonly itemDocStart: Int32Array;
  private readonly docItem: Int32Array;
  private readonly docText: string[];
  /** All forms, each preceded by SEPARATOR; docOffset[d] is where form d's text starts. */
  private readonly haystack: string;
  private readonly docOffset: Int32Array;
  // Trigrams: dense ids, each form's sorted set in docTrigrams[docTrigramStart[d] .. docTrigramStart[d + 1]].
  private readonly trigramIds = new Map<number, number>();
  private readonly docTrigramStart: Int32Array;
  private readonly docTrigrams: Int32Array;
  private readonly postingStart: Int32Array;
  private readonly postings: Int32Array;

  // Scratch, reset after every search.
  private readonly counts: Uint32Array;
  private readonly touchedDocs: Int32Array;
  private readonly layerOf: Uint8Array;
  private readonly similarityOf: Float64Array;
  private readonly touchedItems: Int32Array;
  private touchedItemCount = 0;

  /** Folded code → the items it names (matched exactly only). */
  private readonly codeItems = new Map<string, number[]>();

  constructor(items: readonly LocationItem[], aliasesOf: PlaceAliasesOf = NO_ALIASES) {
    LocationIndex.builds++;
    const n = items.length;
    this.items = items.slice();
    items.forEach((item, i) => {
      if (this.byId.has(item.location_id)) throw new Error(`duplicate location_id ${JSON.stringify(item.location_id)}`);
      this.byId.set(item.location_id, i);
    });

    const orderList = Array.from({ length: n }, (_, i) => i);
    orderList.sort((a, b) => compareItems(this.item(a), this.item(b)));
    this.order = Int32Array.from(orderList);
    this.rank = new Int32Array(n);
    orderList.forEach((itemIndex, position) => (this.rank[itemIndex] = position));

    this.itemType = new Int32Array(n);
    this.itemParent = new Int32Array(n).fill(-1);
    const typeLists: number[][] = [];
    const parentLists: number[][] = [];
    for (const i of orderList) {
      const item = this.item(i);
      let type = this.typeCodes.get(item.location_type);
      if (type === undefined) {
        type = typeLists.length;
        this.typeCodes.set(item.location_type, type);
        typeLists.push([]);
      }
      this.itemType[i] = type;
      typeLists[type]?.push(i);
      if (item.parent_id !== null) {
        let parent = this.parentCodes.get(item.parent_id);
        if (parent === undefined) {
          parent = parentLists.length;
          this.parentCodes.set(item.parent_id, parent);
          parentLists.push([]);
        }
        this.itemParent[i] = parent;
        parentLists[parent]?.push(i);
      }
    }
    for (const list of typeLists) this.byType.push(Int32Array.from(list));
    for (const list of parentLists) this.byParent.push(Int32Array.from(list));

    // Name forms, the haystack and the trigram sets.
    this.itemDocStart = new Int32Array(n + 1);
    const docItem: number[] = [];
    const docText: string[] = [];
    const docOffset: number[] = [];
    const haystackParts: string[] = [];
    let offset = 0;
    const trigramStart: number[] = [0];
    const trigramFlat: number[] = [];
    const scratch: number[] = [];
    for (let i = 0; i < n; i++) {
      this.itemDocStart[i] = docItem.length;
      const item = this.item(i);
      const aliases = aliasesOf(item);
      for (const code of aliases.codes) {
        for (const form of foldedForms(code)) {
          const named = this.codeItems.get(form);
          if (!named) this.codeItems.set(form, [i]);
          else if (!named.includes(i)) named.push(i);
        }
      }
      const forms = new Set([item.name, ...aliases.names].flatMap(foldedForms));
      for (const form of forms) {
        docItem.push(i);
        docText.push(form);
        haystackParts.push(SEPARATOR, form);
        docOffset.push(offset + 1);
        offset += form.length + 1;
        scratch.length = 0;
        appendTrigramIds(form, scratch);
        sortUnique(scratch);
        for (const packed of scratch) {
          let dense = this.trigramIds.get(packed);
          if (dense === undefined) {
            dense = this.trigramIds.size;
            this.trigramIds.set(packed, dense);
          }
          trigramFlat.push(dense);
        }
        trigramStart.push(trigramFlat.length);
      }
    }
    this.itemDocStart[n] = docItem.length;
    this.docItem = Int32Array.from(docItem);
    this.docText = docText;
    this.docOffset = Int32Array.from(docOffset);
    this.haystack = haystackParts.join('') + SEPARATOR;
    this.docTrigramStart = Int32Array.from(trigramStart);
    this.docTrigrams = Int32Array.from(trigramFlat);
    // Dense ids were assigned in order of appearance: sort each form's set so merges work on dense ids.
    for (let d = 0; d < docItem.length; d++) {
      this.docTrigrams.subarray(this.docTrigramStart[d] ?? 0, this.docTrigramStart[d + 1] ?? 0).sort();
    }

    // Inverted index in CSR layout; docs are visited in ascending order, so each list is ascending.
    const trigramCount = this.trigramIds.size;
    this.postingStart = new Int32Array(trigramCount + 1);
    for (const t of this.docTrigrams) this.postingStart[t + 1] = (this.postingStart[t + 1] ?? 0) + 1;
    for (let t = 0; t < trigramCount; t++) {
      this.postingStart[t + 1] = (this.postingStart[t + 1] ?? 0) + (this.postingStart[t] ?? 0);
    }
    this.postings = new Int32Array(this.docTrigrams.length);
    const fill = this.postingStart.slice(0, trigramCount);
    for (let d = 0; d < docItem.length; d++) {
      for (let k = this.docTrigramStart[d] ?? 0; k < (this.docTrigramStart[d + 1] ?? 0); k++) {
        const t = this.docTrigrams[k] ?? 0;
        this.postings[fill[t] ?? 0] = d;
        fill[t] = (fill[t] ?? 0) + 1;
      }
    }

    this.counts = new Uint32Array(docItem.length);
    this.touchedDocs = new Int32Array(docItem.length);
    this.layerOf = new Uint8Array(n);
    this.similarityOf = new Float64Array(n);
    this.touchedItems = new Int32Array(n);
  }

  /** Number of items indexed. */
  get size(): number {
    return this.items.length;
  }

  /** One item by id (a copy), or null. */
  get(locationId: string): LocationItem | null {
    const i = this.byId.get(locationId);
    return i === undefined ? null : { ...this.item(i) };
  }

  /** `GET /locations/search`: ranked items, `count` = items returned. */
  search(options: LocationSearchOptions): LocationListResponse {
    const items = this.rankedSearch(options).map((match) => match.item);
    return { items, count: items.length };
  }

  /** The same search with each item's layer and (fuzzy) similarity. */
  rankedSearch(options: LocationSearchOptions): LocationMatch[] {
    const limit = normalizeCount(options.limit, LOCATION_LIMITS.searchLimitDefault);
    const type = this.typeCode(options.location_type);
    const parent = this.parentCode(options.parent_id);
    if (limit === 0 || type === null || parent === null) return [];
    const forms = this.queryForms(options.q);
    if (forms.length === 0) return [];

    const candidates = this.candidates(type, parent);
    try {
      for (const form of forms) for (const i of this.codeItems.get(form.text) ?? []) if (this.passes(i, type, parent)) this.record(i, EXACT, 0);
      if (candidates !== null && candidates.length < this.items.length * DIRECT_SHARE) {
        for (const i of candidates) this.matchDirectly(i, forms, type, parent);
      } else {
        for (const form of forms) this.scanText(form.text, type, parent);
        // Text matches always outrank fuzzy ones: when they fill the page, fuzzy cannot place an item.
        if (this.touchedItemCount < limit) for (const form of forms) this.scanTrigrams(form, type, parent);
      }
      return this.collect(limit);
    } finally {
      this.resetScratch();
    }
  }

  /**
   * `GET /locations`: children of `parent_id` and/or all items of `location_type` (all items when neither
   * is given), in the global order (doc_count desc, name asc, id asc), paged by `offset` and `limit`.
   */
  list(options: LocationListOptions = {}): LocationListResponse {
    const limit = normalizeCount(options.limit, LOCATION_LIMITS.listLimitDefault);
    const offset = normalizeCount(options.offset, 0);
    const type = this.typeCode(options.location_type);
    const parent = this.parentCode(options.parent_id);
    const items: LocationItem[] = [];
    if (type === null || parent === null || limit === 0) return { items, count: 0 };
    const source = this.candidates(type, parent) ?? this.order;
    const filtered = type >= 0 && parent >= 0; // parent list, still to be filtered by type
    let skipped = 0;
    for (const i of source) {
      if (filtered && this.itemType[i] !== type) continue;
      if (skipped < offset) {
        skipped++;
        continue;
      }
      items.push({ ...this.item(i) });
      if (items.length >= limit) break;
    }
    return { items, count: items.length };
  }

  /** Number of items a listing with these filters would page through (all pages). */
  listTotal(options: Pick<LocationListOptions, 'parent_id' | 'location_type'> = {}): number {
    const type = this.typeCode(options.location_type);
    const parent = this.parentCode(options.parent_id);
    if (type === null || parent === null) return 0;
    const source = this.candidates(type, parent) ?? this.order;
    if (!(type >= 0 && parent >= 0)) return source.length;
    let total = 0;
    for (const i of source) if (this.itemType[i] === type) total++;
    return total;
  }

  // -------------------------------------------------------------------------------------------------------

  private item(i: number): LocationItem {
    const item = this.items[i];
    if (item === undefined) throw new RangeError(`no item ${i}`);
    return item;
  }

  /** -1: no filter; null: a value no item has; else the code. */
  private typeCode(type: string | null | undefined): number | null {
    if (type === undefined || type === null || type === '') return -1;
    return this.typeCodes.get(type) ?? null;
  }

  private parentCode(parentId: string | null | undefined): number | null {
    if (parentId === undefined || parentId === null || parentId === '') return -1;
    return this.parentCodes.get(parentId) ?? null;
  }

  /** The pre-ordered list a filter restricts to (parent first, the smaller one), or null for no filter. */
  private candidates(type: number, parent: number): Int32Array | null {
    if (parent >= 0) return this.byParent[parent] ?? new Int32Array(0);
    if (type >= 0) return this.byType[type] ?? new Int32Array(0);
    return null;
  }

  private passes(i: number, type: number, parent: number): boolean {
    return (type < 0 || this.itemType[i] === type) && (parent < 0 || this.itemParent[i] === parent);
  }

  private queryForms(q: string): QueryForm[] {
    return foldedForms(q.trim()).map((text) => {
      const packed = appendTrigramIds(text, []);
      const size = sortUnique(packed);
      const known: number[] = [];
      for (const p of packed) {
        const dense = this.trigramIds.get(p);
        if (dense !== undefined) known.push(dense);
      }
      known.sort((a, b) => a - b);
      return { text, known: Int32Array.from(known), size };
    });
  }

  /** Records a match; an item keeps its best layer and, for fuzzy, its highest similarity. */
  private record(i: number, layer: number, similarity: number): void {
    const current = this.layerOf[i] ?? NO_LAYER;
    if (current === NO_LAYER) {
      this.touchedItems[this.touchedItemCount++] = i;
      this.layerOf[i] = layer;
      this.similarityOf[i] = similarity;
    } else if (layer < current) {
      this.layerOf[i] = layer;
    } else if (layer === FUZZY && current === FUZZY && similarity > (this.similarityOf[i] ?? 0)) {
      this.similarityOf[i] = similarity;
    }
  }

  /** Exact, prefix and substring matches of one folded query form over all name forms. */
  private scanText(query: string, type: number, parent: number): void {
    const haystack = this.haystack;
    const docCount = this.docItem.length;
    let d = 0;
    let from = 0;
    for (;;) {
      const at = haystack.indexOf(query, from);
      if (at < 0) return;
      // Occurrences never span a separator; advance to the form that holds this one.
      while (d + 1 < docCount && (this.docOffset[d + 1] ?? 0) <= at) d++;
      const start = this.docOffset[d] ?? 0;
      const length = this.docText[d]?.length ?? 0;
      const i = this.docItem[d] ?? 0;
      if (this.passes(i, type, parent)) {
        this.record(i, at !== start ? SUBSTRING : query.length === length ? EXACT : PREFIX, 0);
      }
      // A later occurrence in the same form cannot be at its start: go to the next form.
      from = start + length + 1;
    }
  }

  /** Fuzzy matches of one query form via the inverted index. */
  private scanTrigrams(form: QueryForm, type: number, parent: number): void {
    const { counts, touchedDocs, postings, postingStart } = this;
    let touched = 0;
    for (const t of form.known) {
      const end = postingStart[t + 1] ?? 0;
      for (let k = postingStart[t] ?? 0; k < end; k++) {
        const d = postings[k] ?? 0;
        const c = counts[d] ?? 0;
        if (c === 0) touchedDocs[touched++] = d;
        counts[d] = c + 1;
      }
    }
    for (let k = 0; k < touched; k++) {
      const d = touchedDocs[k] ?? 0;
      const shared = counts[d] ?? 0;
      counts[d] = 0;
      const size = (this.docTrigramStart[d + 1] ?? 0) - (this.docTrigramStart[d] ?? 0);
      const similarity = similarityFromCounts(shared, form.size, size);
      if (similarity < SIMILARITY_THRESHOLD) continue;
      const i = this.docItem[d] ?? 0;
      if (this.passes(i, type, parent)) this.record(i, FUZZY, similarity);
    }
  }

  /** All four layers for one candidate item, by direct comparison. */
  private matchDirectly(i: number, forms: readonly QueryForm[], type: number, parent: number): void {
    if (!this.passes(i, type, parent)) return;
    for (let d = this.itemDocStart[i] ?? 0; d < (this.itemDocStart[i + 1] ?? 0); d++) {
      const text = this.docText[d] ?? '';
      const from = this.docTrigramStart[d] ?? 0;
      const to = this.docTrigramStart[d + 1] ?? 0;
      for (const form of forms) {
        const at = text.indexOf(form.text);
        if (at >= 0) {
          this.record(i, at > 0 ? SUBSTRING : text.length === form.text.length ? EXACT : PREFIX, 0);
          continue;
        }
        const similarity = similarityFromCounts(countShared(form.known, this.docTrigrams, from, to), form.size, to - from);
        if (similarity >= SIMILARITY_THRESHOLD) this.record(i, FUZZY, similarity);
      }
    }
  }

  /** The recorded matches in layer order, each layer in its documented order, at most `limit`. */
  private collect(limit: number): LocationMatch[] {
    const perLayer: number[][] = [[], [], [], [], []];
    for (let k = 0; k < this.touchedItemCount; k++) {
      const i = this.touchedItems[k] ?? 0;
      perLayer[this.layerOf[i] ?? NO_LAYER]?.push(i);
    }
    const out: LocationMatch[] = [];
    for (let layer = EXACT; layer <= FUZZY && out.length < limit; layer++) {
      const members = perLayer[layer] ?? [];
      if (members.length === 0) continue;
      const room = limit - out.length;
      let chosen: number[];
      if (layer === FUZZY) {
        chosen = members.sort((a, b) => (this.similarityOf[b] ?? 0) - (this.similarityOf[a] ?? 0) || (this.rank[a] ?? 0) - (this.rank[b] ?? 0));
      } else if (members.length <= SORT_MAX) {
        chosen = members.sort((a, b) => (this.rank[a] ?? 0) - (this.rank[b] ?? 0));
      } else {
        // Many members (a short query): read them off the global order, stopping when there is no room.
        chosen = [];
        for (const i of this.order) {
          if (this.layerOf[i] === layer) {
            chosen.push(i);
            if (chosen.length >= room) break;
          }
        }
      }
      const name = LOCATION_MATCH_LAYERS[layer - 1] ?? 'fuzzy';
      for (let k = 0; k < chosen.length && k < room; k++) {
        const i = chosen[k] ?? 0;
        out.push({ item: { ...this.item(i) }, layer: name, similarity: layer === FUZZY ? (this.similarityOf[i] ?? 0) : null });
      }
    }
    return out;
  }

  private resetScratch(): void {
    for (let k = 0; k < this.touchedItemCount; k++) {
      const i = this.touchedItems[k] ?? 0;
      this.layerOf[i] = NO_LAYER;
      this.similarityOf[i] = 0;
    }
    this.touchedItemCount = 0;
  }
}

/** A non-negative integer option: missing → fallback; fractions floored; negatives → 0. */
function normalizeCount(value: number | undefined, fallback: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.max(0, Math.floor(value));
}
