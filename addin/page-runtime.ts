/**
 * The one AddinRuntime of this page, wired to Office: OfficeRuntime.storage for the key and the cache
 * (the browser's localStorage when the task pane is opened outside Office, as the browser test does),
 * the page's timer, ky for remote calls, and the engine as a separate chunk loaded on first local use.
 */
import { createRemoteClient } from '../src/client/transports/ky.js';
import type { AsyncStorage } from '../src/sheet/cache.js';
import { AddinRuntime } from './addin-runtime.js';

/** localStorage behind the async storage interface: the stand-in outside Office. */
function pageStorage(): AsyncStorage {
  return {
    getItem: (key) => Promise.resolve(window.localStorage.getItem(key)),
    setItem: (key, value) => {
      window.localStorage.setItem(key, value);
      return Promise.resolve();
    },
    removeItem: (key) => {
      window.localStorage.removeItem(key);
      return Promise.resolve();
    },
  };
}

let runtime: AddinRuntime | null = null;

export function addinRuntime(): AddinRuntime {
  runtime ??= new AddinRuntime({
    storage: typeof OfficeRuntime !== 'undefined' ? OfficeRuntime.storage : pageStorage(),
    schedule: (run, ms) => {
      setTimeout(run, ms);
    },
    loadEngine: async () => {
      const engine = await import(/* webpackChunkName: "engine" */ '../src/engine/engine.js');
      return engine.createDefaultEngine();
    },
    loadPlaceCoordinates: async () => (await import(/* webpackChunkName: "geography" */ '../src/engine/dataset/place-coordinates.js')).placeCoordinates,
    createClient: createRemoteClient,
  });
  return runtime;
}
