/**
 * Enrich a selected column of domains: choose columns, write them to the right of the selection in
 * chunks (each one request of up to 2,500 domains, so progress moves and Cancel stops between chunks).
 * Or, where the host has data types, convert the domains in place to organization cards; where this
 * Excel has none, the conversion writes the chosen columns beside instead and says why.
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
/** Cards are about 1.7 KB each: 1,000 a write keeps one Office.js request under 2 MB (Excel on the web takes 5). */
export const CONVERT_CHUNK = 1_000;

/** Why a conversion wrote columns instead of cards. */
export const NO_DATA_TYPES = 'This Excel cannot show data types (they need Excel for Microsoft 365 version 2208 or later, Excel 2024, Mac 16.64 or Excel on the web)';

export function EnrichPanel({ host, functions }: { host: Host; functions: SheetFunctions }) {
  const [columns, setColumns] = useState<SelectableColumn[]>(['name', 'country', 'nace_code']);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const cancelled = useRef(false);
  const isCancelled = (): boolean => cancelled.current;
  const { busy, error, run } = useAction();

  /** Cards in place where the host shows them, else the chosen columns beside. */
  const process = (mode: 'columns' | 'cards') =>
    run(async () => {
      cancelled.current = false;
      setNotice(null);
      const cards = mode === 'cards' && host.cards?.supported() ? host.cards : null;
      const selection = await host.readSelectedColumn();
      const total = selection.values.length;
      let converted = 0;
      const step = cards ? CONVERT_CHUNK : ENRICH_CHUNK;
      setProgress({ done: 0, total });
      for (let start = 0; start < total; start += step) {
        // Cancel flips the ref while this loop awaits.
        if (isCancelled()) {
          setNotice(`Cancelled after ${start.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} rows; what was written stays.`);
          return;
        }
        const chunk = selection.values.slice(start, start + step).map((value) => [value]);
        // The strict calls throw when the whole request fails (rate limit, network): the loop stops and says why.
        if (cards) {
          converted += await cards.writeCards(selection.address, start, await functions.cardsStrict(chunk));
        } else {
          await host.writeBeside(selection.address, start, await functions.fetchStrict(chunk, columns.join(','), null));
        }
        setProgress({ done: Math.min(total, start + step), total });
      }
      const rows = total.toLocaleString('en-US');
      if (cards) {
        const left = total - converted;
        setNotice(`${converted.toLocaleString('en-US')} of ${rows} cells converted to organizations in ${selection.address}${left > 0 ? `; ${left.toLocaleString('en-US')} left as they were (blank, not a domain, not in the index, or a formula)` : ''}.`);
      } else if (mode === 'cards') {
        setNotice(`${NO_DATA_TYPES}: the columns were written beside ${selection.address} instead (${rows} rows).`);
      } else {
        setNotice(`${rows} rows enriched beside ${selection.address}.`);
      }
    });

  return (
    <section aria-label="Enrich selection">
      <Caption1>
        Select a column of domains (URLs and e-mail addresses work too), choose columns, and enrich.{host.cards ? ' Or convert the domains to organization cards: =A2.name then reads a field.' : ''}
      </Caption1>
      <ColumnPicker label="Columns to add" columns={columns} onChange={setColumns} />
      <div className="row">
        <Button appearance="primary" disabled={busy || columns.length === 0 || !host.canWrite} onClick={() => void process('columns')}>
          Enrich selection
        </Button>
        {host.cards ? (
          <Button disabled={busy || !host.canWrite} onClick={() => void process('cards')}>
            Convert domains to organizations
          </Button>
        ) : null}
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
