/**
 * Enrich a selected column of domains: choose columns, write them to the right of the selection in
 * chunks (each one request of up to 2,500 domains, so progress moves and Cancel stops between chunks).
 * Answers go through the functions' cache: enriching the same column again spends nothing.
 */
import { Button, Caption1, Field, ProgressBar } from '@fluentui/react-components';
import { useRef, useState } from 'react';
import type { SelectableColumn } from '../../contract/common.js';
import type { SheetFunctions } from '../../sheet/functions.js';
import type { Host } from '../host.js';
import { Notice } from './Notice.js';
import { ColumnPicker } from './ColumnPicker.js';
import { useAction } from './use-async.js';

export const ENRICH_CHUNK = 2_500;

export function EnrichPanel({ host, functions }: { host: Host; functions: SheetFunctions }) {
  const [columns, setColumns] = useState<SelectableColumn[]>(['name', 'country', 'nace_code']);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const cancelled = useRef(false);
  const isCancelled = (): boolean => cancelled.current;
  const { busy, error, run } = useAction();

  const enrich = () =>
    run(async () => {
      cancelled.current = false;
      setNotice(null);
      const selection = await host.readSelectedColumn();
      const total = selection.values.length;
      setProgress({ done: 0, total });
      for (let start = 0; start < total; start += ENRICH_CHUNK) {
        // Cancel flips the ref while this loop awaits.
        if (isCancelled()) {
          setNotice(`Cancelled after ${start.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} rows; what was written stays.`);
          return;
        }
        const chunk = selection.values.slice(start, start + ENRICH_CHUNK).map((value) => [value]);
        // fetchStrict throws when the whole request fails (rate limit, network): the loop stops and says why.
        const table = await functions.fetchStrict(chunk, columns.join(','), null);
        await host.writeBeside(selection.address, start, table);
        setProgress({ done: Math.min(total, start + ENRICH_CHUNK), total });
      }
      setNotice(`${total.toLocaleString('en-US')} rows enriched beside ${selection.address}.`);
    });

  return (
    <section aria-label="Enrich selection">
      <Caption1>Select a column of domains (URLs and e-mail addresses work too), choose columns, and enrich.</Caption1>
      <ColumnPicker label="Columns to add" columns={columns} onChange={setColumns} />
      <div className="row">
        <Button appearance="primary" disabled={busy || columns.length === 0 || !host.canWrite} onClick={() => void enrich()}>
          Enrich selection
        </Button>
        <Button
          disabled={!busy}
          onClick={() => {
            cancelled.current = true;
          }}
        >
          Cancel
        </Button>
      </div>
      {progress ? (
        <Field label={`${progress.done.toLocaleString('en-US')} of ${progress.total.toLocaleString('en-US')} rows`}>
          <ProgressBar value={progress.total === 0 ? 1 : progress.done / progress.total} max={1} aria-label="Enrichment progress" />
        </Field>
      ) : null}
      {!host.canWrite ? <Caption1>Open the add-in in Excel to enrich a selection.</Caption1> : null}
      <Notice intent="info" text={notice} />
      <Notice intent="error" text={error} />
    </section>
  );
}
