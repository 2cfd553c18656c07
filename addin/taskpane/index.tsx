/** The task pane page: wait for Office (if present), read the stored connection, render the shared UI. */
import { createRoot } from 'react-dom/client';
import { App } from '../../src/ui/App.js';
import { addinRuntime } from '../page-runtime.js';
import { excelHost, previewHost } from './hosts.js';

async function inExcel(): Promise<boolean> {
  if (typeof Office === 'undefined') return false;
  const info = await Office.onReady();
  return info.host === Office.HostType.Excel;
}

async function start(): Promise<void> {
  const runtime = addinRuntime();
  const excel = await inExcel();
  await runtime.ready;
  const root = document.getElementById('root');
  if (!root) throw new Error('taskpane.html lacks #root');
  createRoot(root).render(<App host={excel ? excelHost(runtime) : previewHost(runtime)} functions={runtime.functions} />);
}

void start();
