/**
 * Count organizations by one or two dimensions; preview, then insert the table with a chart, or as
 * refreshable values. Counts by country, state or municipality are also drawn on a map in the pane, and,
 * where the host has a map chart for the level, inserted as one.
 */
import { Button, Caption1, Dropdown, Field, Input, Option } from '@fluentui/react-components';
import { useState } from 'react';
import { STATS_GROUP_BY } from '../../contract/v2/stats.js';
import type { Table } from '../../sheet/cells.js';
import type { SheetFunctions } from '../../sheet/functions.js';
import { statsCall } from '../../sheet/formula-grammar.js';
import type { Host } from '../host.js';
import { MAP_LEVELS, type MapLevel } from '../../contract/common.js';
import { CountMap } from './CountMap.js';
import { PreviewGrid } from './PreviewGrid.js';
import { Notice } from './Notice.js';
import { useAction } from './use-async.js';

export function StatsPanel({ host, functions }: { host: Host; functions: SheetFunctions }) {
  const [groupBy, setGroupBy] = useState<string>('organization_type');
  const [secondary, setSecondary] = useState<string>('');
  const [filters, setFilters] = useState('');
  const [table, setTable] = useState<Table | null>(null);
  /** The level of the counted table when it can go on a map (one dimension, a place level). */
  const [mapLevel, setMapLevel] = useState<MapLevel | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const options = 'limit=50';

  const count = () =>
    run(async () => {
      const result = await functions.stats(groupBy, secondary, filters, options);
      const first = result[0]?.[0];
      if (typeof first === 'object' && first !== null) throw new Error(first.message);
      setTable(result);
      setMapLevel(secondary === '' ? (MAP_LEVELS.find((level) => level === groupBy) ?? null) : null);
    });
  const mapChart = host.mapChart;
  const insertMap = (chart: NonNullable<typeof mapChart>) => run(() => chart.insert(table ?? [], `Organizations by ${groupBy}`));
  const saved = host.savedQueries;
  const insertRefreshable = (target: NonNullable<typeof saved>) =>
    run(async () => {
      // The same request the formula would send (statsCall reads the filters text as ORG.STATS does).
      const call = statsCall(groupBy, secondary, filters, options);
      const query = await target.insert({ interface: 'v2', route: 'stats', body: { ...call.body } }, { headers: call.headers, layout: call.layout });
      setNotice(`Saved at ${query.target}: refreshed by Refresh now and on the schedule (Refresh tab).`);
    });

  return (
    <section aria-label="Statistics">
      <Field label="Count by">
        <Dropdown value={groupBy} selectedOptions={[groupBy]} onOptionSelect={(_, data) => setGroupBy(data.optionValue ?? groupBy)}>
          {STATS_GROUP_BY.map((dimension) => (
            <Option key={dimension}>{dimension}</Option>
          ))}
        </Dropdown>
      </Field>
      <Field label="And by (crosstab, optional)">
        <Dropdown value={secondary || 'none'} selectedOptions={[secondary]} onOptionSelect={(_, data) => setSecondary(data.optionValue === 'none' ? '' : (data.optionValue ?? ''))}>
          <Option value="none">none</Option>
          {STATS_GROUP_BY.filter((dimension) => dimension !== groupBy).map((dimension) => (
            <Option key={dimension}>{dimension}</Option>
          ))}
        </Dropdown>
      </Field>
      <Field label="Filters" hint="country=Deutschland; organization_type=Startup">
        <Input value={filters} onChange={(_, data) => setFilters(data.value)} />
      </Field>
      <div className="row">
        <Button appearance="primary" disabled={busy} onClick={() => void count()}>
          Count
        </Button>
        <Button disabled={busy || !table || !host.canWrite} onClick={() => void run(() => host.insertChart(table ?? [], `Organizations by ${groupBy}`))}>
          Insert table and chart
        </Button>
        {mapChart && mapLevel ? (
          <Button disabled={busy || !host.canWrite || !mapChart.levels.includes(mapLevel)} onClick={() => void insertMap(mapChart)}>
            Insert table and map chart
          </Button>
        ) : null}
        {saved ? (
          <Button disabled={busy} onClick={() => void insertRefreshable(saved)}>
            Insert as refreshable values
          </Button>
        ) : null}
      </div>
      {table && mapLevel ? <CountMap host={host} table={table} level={mapLevel} /> : null}
      {mapChart && mapLevel && !mapChart.levels.includes(mapLevel) ? (
        <Caption1>Excel's map charts shade countries and states; for municipalities the map above is the one to use.</Caption1>
      ) : null}
      {table ? <PreviewGrid table={table} label="Counts" /> : <Caption1>One request, however many organizations are counted.</Caption1>}
      <Notice intent="success" text={notice} />
      <Notice intent="error" text={error} />
    </section>
  );
}
