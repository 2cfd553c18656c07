/**
 * The add-in's shared runtime state: one connection, one backend, one cache and one set of functions,
 * used by the custom functions and the task pane alike (Excel loads both into the same page with
 * `SharedRuntime`, and webpack's single runtime chunk makes this module one instance for both).
 * Everything Office-specific is injected, so tests run it against a stand-in storage and a real server.
 */
import type { OrgIndexClient } from '../src/client/client.js';
import type { ClientOptions } from '../src/client/config.js';
import type { Quota } from '../src/contract/errors.js';
import type { Engine } from '../src/engine/engine.js';
import type { placeCoordinates } from '../src/engine/dataset/place-coordinates.js';
import type { Coordinates, MapLevel } from '../src/contract/common.js';
import { localBackend, remoteBackend, type SheetBackend } from '../src/sheet/backend.js';
import { ResultCache, type AsyncStorage } from '../src/sheet/cache.js';
import { clientOptionsOf, readConnection, type Connection } from '../src/sheet/connection.js';
import { SheetFunctions } from '../src/sheet/functions.js';

export const CONNECTION_KEY = 'orgindex:connection';

export interface RuntimeDeps {
  /** OfficeRuntime.storage in Excel: per add-in origin, outside the workbook. */
  storage: AsyncStorage;
  schedule: (run: () => void, ms: number) => void;
  /** Builds the embedded sample index (the add-in loads the engine's chunk on demand). */
  loadEngine: () => Promise<Engine>;
  /** Coordinates of places from the embedded geography (the same chunk), for the map of counts. */
  loadPlaceCoordinates: () => Promise<typeof placeCoordinates>;
  createClient: (options: ClientOptions) => OrgIndexClient;
  now?: () => number;
}

export class AddinRuntime {
  connection: Connection = readConnection(null);
  backend: SheetBackend;
  client: OrgIndexClient | null = null;
  readonly cache: ResultCache;
  readonly functions: SheetFunctions;
  /** Resolves once the stored connection is read; every function call waits for it. */
  readonly ready: Promise<void>;
  private readonly local: SheetBackend;
  private quotaListeners = new Set<(quota: Quota) => void>();
  lastQuota: Quota | null = null;
  /** Whether a formula asked for organization cards this Excel cannot show (it got plain columns): the task pane says so once. */
  cardsFellBack = false;
  private cardFallbackListeners = new Set<() => void>();

  constructor(private readonly deps: RuntimeDeps) {
    const now = deps.now ?? (() => Date.now());
    this.local = localBackend(deps.loadEngine);
    this.backend = this.local;
    this.cache = new ResultCache({ storage: deps.storage, now });
    this.functions = new SheetFunctions({ backend: () => this.backend, cache: this.cache, schedule: deps.schedule, now });
    this.ready = deps.storage
      .getItem(CONNECTION_KEY)
      .then((text) => {
        this.apply(readConnection(text));
      })
      .catch(() => {
        this.apply(readConnection(null));
      });
  }

  private apply(connection: Connection): void {
    this.connection = connection;
    this.lastQuota = null;
    this.cache.setTtlMs(connection.cacheHours * 3_600_000);
    if (connection.backend === 'remote' && connection.serviceUrl.trim() !== '') {
      const client = this.deps.createClient(clientOptionsOf(connection));
      client.onQuota((quota) => {
        this.lastQuota = quota;
        for (const listener of this.quotaListeners) listener(quota);
      });
      this.client = client;
      this.backend = remoteBackend(client);
    } else {
      this.client = null;
      this.backend = this.local;
    }
  }

  /** A backend for a connection without switching to it (the task pane tests before it saves). */
  backendFor(connection: Connection): SheetBackend {
    return connection.backend === 'remote' ? remoteBackend(this.deps.createClient(clientOptionsOf(connection))) : this.local;
  }

  /** Validates (the client checks URL and key), stores and switches to a connection. */
  async setConnection(connection: Connection): Promise<void> {
    await this.ready; // else the stored connection, read late, would overwrite this one
    if (connection.backend === 'remote') this.deps.createClient(clientOptionsOf(connection));
    await this.deps.storage.setItem(CONNECTION_KEY, JSON.stringify(connection));
    this.apply(connection);
  }

  /** Where the named places lie (those the embedded geography knows). */
  async placeCoordinates(level: MapLevel, names: readonly string[]): Promise<Record<string, Coordinates>> {
    return (await this.deps.loadPlaceCoordinates())(level, names);
  }

  /** ORG.FETCH(…, "as=card") answered with plain columns, as this Excel has no data types. */
  noteCardsFellBack(): void {
    if (this.cardsFellBack) return;
    this.cardsFellBack = true;
    for (const listener of this.cardFallbackListeners) listener();
  }

  onCardsFellBack(listener: () => void): () => void {
    this.cardFallbackListeners.add(listener);
    return () => this.cardFallbackListeners.delete(listener);
  }

  onQuota(listener: (quota: Quota) => void): () => void {
    this.quotaListeners.add(listener);
    return () => this.quotaListeners.delete(listener);
  }
}
