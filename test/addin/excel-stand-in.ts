/**
 * STAND-IN for what cannot exist here: Excel's custom-functions runtime (`CustomFunctions.Error`,
 * `ErrorCode`, `associate`), `OfficeRuntime.storage` (a Map behind the same async interface,
 * including the batched getItems / setItems / removeItems) and `Office.context.requirements` (which
 * ExcelApi version this Excel has). The functions under test and the server they call are real; only
 * these Office globals are imitated.
 */
import { atLeast } from './cell-value-shape.js';

/** `Office.context.requirements.isSetSupported` answering for an Excel with the ExcelApi version `excelApi()` gives. */
export function installOfficeRequirements(excelApi: () => string): void {
  Object.assign(globalThis, {
    Office: { context: { requirements: { isSetSupported: (name: string, version = '1.1') => name === 'ExcelApi' && atLeast(excelApi(), version) } } },
  });
}
export class StandInExcelError {
  constructor(
    readonly code: string,
    readonly message?: string,
  ) {}
}

export class StandInStorage {
  readonly items = new Map<string, string>();
  getItem(key: string): Promise<string | null> {
    return Promise.resolve(this.items.get(key) ?? null);
  }
  setItem(key: string, value: string): Promise<void> {
    this.items.set(key, value);
    return Promise.resolve();
  }
  removeItem(key: string): Promise<void> {
    this.items.delete(key);
    return Promise.resolve();
  }
  getItems(keys: string[]): Promise<Record<string, string | null>> {
    return Promise.resolve(Object.fromEntries(keys.map((key) => [key, this.items.get(key) ?? null])));
  }
  setItems(values: Record<string, string>): Promise<void> {
    for (const [key, value] of Object.entries(values)) this.items.set(key, value);
    return Promise.resolve();
  }
  removeItems(keys: string[]): Promise<void> {
    for (const key of keys) this.items.delete(key);
    return Promise.resolve();
  }
}

/** Installs the two globals; returns the storage so a test can pre-set the connection or inspect the cache. */
export function installExcelStandIn(): StandInStorage {
  const storage = new StandInStorage();
  const associated = new Map<string, unknown>();
  Object.assign(globalThis, {
    CustomFunctions: {
      Error: StandInExcelError,
      ErrorCode: { invalidValue: '#VALUE!', notAvailable: '#N/A' },
      associate: (id: string, fn: unknown) => associated.set(id, fn),
    },
    OfficeRuntime: { storage },
  });
  return storage;
}
