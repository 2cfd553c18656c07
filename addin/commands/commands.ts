/** Ribbon commands (ExecuteFunction buttons), run in the shared runtime beside the task pane. */
import { addinRuntime } from '../office-runtime.js';
import { pinSelection, refresh } from '../excel-actions.js';

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
    Office.actions.associate('pinAsValues', command(pinSelection));
  });
}
