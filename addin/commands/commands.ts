/** Ribbon commands (ExecuteFunction buttons), run in the shared runtime beside the task pane. */
import { addinRuntime } from '../page-runtime.js';
import { pinSelection, refresh } from '../excel-actions.js';
import { refreshSavedQueries } from '../saved-queries.js';

function command(action: () => Promise<void>): (event: Office.AddinCommands.Event) => void {
  return (event) => {
    action()
      .catch((error: unknown) => {
        console.error('OrgIndex command failed', error);
      })
      .finally(() => {
        event.completed();
      });
  };
}

if (typeof Office !== 'undefined') {
  void Office.onReady(() => {
    Office.actions.associate('refreshResults', command(() => refresh(addinRuntime())));
    Office.actions.associate('refreshSavedQueries', command(async () => {
      const report = await refreshSavedQueries(addinRuntime());
      // A ribbon command has no window of its own: failures are stored with each query (the task pane's Refresh tab lists them).
      if (report.failed.length > 0) console.warn('OrgIndex: saved queries failed to refresh', report.failed);
    }));
    Office.actions.associate('pinAsValues', command(pinSelection));
  });
}
