/**
 * The task pane's Host in Excel, and the preview host used when the page is opened outside Office (a
 * browser, the UI test): same backend and connection storage, but nothing to write into.
 */
import type { Host } from '../../src/ui/host.js';
import type { AddinRuntime } from '../addin-runtime.js';
import { entitiesSupported } from '../entity.js';
import * as excel from '../excel-actions.js';
import { excelSavedQueries } from '../saved-queries.js';

function common(runtime: AddinRuntime): Pick<Host, 'functionName' | 'connection' | 'saveConnection' | 'canShareConnection' | 'backend' | 'backendFor' | 'lastQuota' | 'onQuota' | 'placeCoordinates'> {
  return {
    placeCoordinates: (level, names) => runtime.placeCoordinates(level, names),
    canShareConnection: false,
    functionName: (id) => `ORG.${id}`,
    connection: () => runtime.connection,
    saveConnection: (connection) => runtime.setConnection(connection),
    backend: () => runtime.backend,
    backendFor: (connection) => runtime.backendFor(connection),
    lastQuota: () => runtime.lastQuota,
    onQuota: (listener) => runtime.onQuota(listener),
  };
}

export function excelHost(runtime: AddinRuntime): Host {
  return {
    label: 'Excel',
    canWrite: true,
    keyStorage: 'Stored for this add-in on this computer only (OfficeRuntime.storage), never in the workbook.',
    ...common(runtime),
    insertFormula: excel.insertFormula,
    insertValues: async (table, options) => {
      await excel.insertValues(table, options.asTable);
    },
    readSelectedColumn: excel.readSelectedColumn,
    writeBeside: excel.writeBeside,
    insertChart: excel.insertChart,
    refresh: () => excel.refresh(runtime),
    pinSelection: excel.pinSelection,
    // The hidden sheet _orgindex and defined names: the format `orgindex refresh` reads from cron.
    savedQueries: excelSavedQueries(runtime),
    cards: {
      supported: entitiesSupported,
      writeCards: excel.writeCards,
      fellBack: () => runtime.cardsFellBack,
      onFellBack: (listener) => runtime.onCardsFellBack(listener),
    },
    mapChart: { levels: ['country', 'state'], insert: excel.insertMapChart },
  };
}

export function previewHost(runtime: AddinRuntime): Host {
  const outside = (): Promise<never> => Promise.reject(new Error('Open the add-in in Excel to write into a sheet'));
  return {
    label: 'Browser preview',
    canWrite: false,
    keyStorage: 'Stored in this browser only, never in a workbook.',
    ...common(runtime),
    insertFormula: outside,
    insertValues: outside,
    readSelectedColumn: outside,
    writeBeside: outside,
    insertChart: outside,
    refresh: () => runtime.functions.clearCache(),
    pinSelection: outside,
    savedQueries: null,
    cards: null,
    mapChart: null,
  };
}
