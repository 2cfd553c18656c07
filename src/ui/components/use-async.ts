/** A small hook for one-shot async actions: busy flag, error text, and a guard against updates after unmount. */
import { useCallback, useEffect, useRef, useState } from 'react';
import { errorCellOf } from '../../sheet/cells.js';

export function useAction(): { busy: boolean; error: string | null; run: (action: () => Promise<void>) => Promise<void>; setError: (message: string | null) => void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const run = useCallback(async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (caught) {
      // The same wording as the cells show.
      if (mounted.current) setError(errorCellOf(caught).message);
    } finally {
      if (mounted.current) setBusy(false);
    }
  }, []);
  return { busy, error, run, setError };
}
