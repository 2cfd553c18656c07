/**
 * What the search form writes into the sheet: "Insert formula" (the equivalent ORG.SEARCH formula),
 * "Insert values" (the rows as a table) and, where the host keeps saved queries, "Insert as refreshable
 * values" (the rows, refreshed later); each says what it did or why it failed.
 */
import { Button, Caption1 } from '@fluentui/react-components';
import { useState } from 'react';
import type { SheetFunctions } from '../../sheet/functions.js';
import { searchTable } from '../../sheet/tables.js';
import type { Host } from '../host.js';
import { requestOf, type SearchForm } from '../search-form.js';
import { Notice } from './Notice.js';
import { useAction } from './use-async.js';

export function SearchActions({ host, functions, search, searchable, formula }: { host: Host; functions: SheetFunctions; search: SearchForm; searchable: boolean; formula: string }) {
  const { busy, error, run } = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const insertFormula = () =>
    run(async () => {
      await host.insertFormula(formula);
      setNotice('Formula inserted: it recalculates from the cache, and Refresh asks again.');
    });
  const insertValues = () =>
    run(async () => {
      const response = await functions.searchResponse(requestOf(search));
      await host.insertValues(searchTable(response.data, search.columns, true), { asTable: true });
      setNotice(`${response.data.length.toLocaleString('en-US')} rows inserted as a table.`);
    });
  const saved = host.savedQueries;
  const insertRefreshable = (target: NonNullable<typeof saved>) =>
    run(async () => {
      const query = await target.insert({ interface: 'v2', route: 'search', body: { ...requestOf(search) }, rows: search.size }, { headers: true, layout: 'crosstab' });
      setNotice(`Saved at ${query.target}: refreshed by Refresh now and on the schedule (Refresh tab).`);
    });
  return (
    <>
      <div className="row">
        <Button appearance="primary" disabled={!searchable || busy} onClick={() => void insertFormula()}>
          Insert formula
        </Button>
        <Button disabled={!searchable || busy} onClick={() => void insertValues()}>
          Insert values
        </Button>
        {saved ? (
          <Button disabled={!searchable || busy} onClick={() => void insertRefreshable(saved)}>
            Insert as refreshable values
          </Button>
        ) : null}
      </div>
      {!host.canWrite ? <Caption1>Open the add-in in Excel to insert into a sheet.</Caption1> : null}
      <Notice intent="success" text={notice} />
      <Notice intent="error" text={error} />
    </>
  );
}
