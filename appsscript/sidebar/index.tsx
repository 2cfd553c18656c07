/** The sidebar page: the shared UI (src/ui) on the Sheets host, its functions over the script's backend. */
import { createRoot } from 'react-dom/client';
import { ResultCache } from '../../src/sheet/cache.js';
import { SheetFunctions } from '../../src/sheet/functions.js';
import { App, type TabId } from '../../src/ui/App.js';
import { SheetsHost } from './sheets-host.js';

async function start(): Promise<void> {
  const host = new SheetsHost();
  await host.load();
  // The sidebar's own answers (preview, enrich, stats) are cached for the life of the page.
  const functions = new SheetFunctions({
    backend: () => host.backend(),
    cache: new ResultCache({ now: () => Date.now() }),
    schedule: (run, ms) => {
      setTimeout(run, ms);
    },
  });
  const root = document.getElementById('root');
  if (!root) throw new Error('Sidebar.html lacks #root');
  // The menu's "Schedule refresh…" opens the page on the Refresh tab (menu.ts sets data-tab).
  const initialTab = root.dataset.tab === 'refresh' ? 'refresh' : 'search';
  createRoot(root).render(<App host={host} functions={functions} initialTab={initialTab satisfies TabId} />);
}

void start();
