/**
 * Build a search: places, categories, keywords (all / any / not), a description or similar domains,
 * size / min_score / balance / dedup, output columns. The preview runs (debounced) as the form changes;
 * "Insert formula" writes the equivalent ORG.SEARCH formula, "Insert values" the rows as an Excel table,
 * "Insert as refreshable values" (where the host keeps saved queries) the rows, refreshed later.
 */
import { Button, Caption1, Dropdown, Field, Input, Option, Slider, SpinButton, Spinner, Switch, Textarea } from '@fluentui/react-components';
import { useEffect, useMemo, useState } from 'react';
import type { SearchResponse } from '../../contract/v2/search.js';
import { errorCellOf } from '../../sheet/cells.js';
import { searchTable } from '../../sheet/tables.js';
import type { SheetFunctions } from '../../sheet/functions.js';
import type { Host } from '../host.js';
import { EMPTY_FORM, formulaOf, isSearchable, requestOf, splitPlaces, type SearchForm } from '../search-form.js';
import { ChipInput } from './ChipInput.js';
import { ColumnPicker } from './ColumnPicker.js';
import { LocationPicker, type PlaceChoice } from './LocationPicker.js';
import { PreviewGrid } from './PreviewGrid.js';
import { Notice } from './Notice.js';
import { PlainLanguageBox } from './PlainLanguageBox.js';
import { useAction } from './use-async.js';

const PREVIEW_ROWS = 20;
const CATEGORY_FILTERS = ['organization_type', 'organization_size'] as const;

function MultiSelect({ label, options, values, onChange }: { label: string; options: { value: string; count?: number }[]; values: string[]; onChange: (values: string[]) => void }) {
  return (
    <Field label={label}>
      <Dropdown multiselect placeholder="Any" selectedOptions={values} value={values.join(', ')} onOptionSelect={(_, data) => onChange(data.selectedOptions)}>
        {options.map((option) => (
          <Option key={option.value} value={option.value} text={option.value}>
            {option.count === undefined ? option.value : `${option.value} (${option.count.toLocaleString('en-US')})`}
          </Option>
        ))}
      </Dropdown>
    </Field>
  );
}

export function SearchPanel({ host, functions, revision }: { host: Host; functions: SheetFunctions; revision: number }) {
  const [form, setForm] = useState<SearchForm>(EMPTY_FORM);
  const [places, setPlaces] = useState<PlaceChoice[]>([]);
  const [categories, setCategories] = useState<Record<string, { value: string; count: number }[]>>({});
  const [preview, setPreview] = useState<SearchResponse | null>(null);
  const [previewError, setPreviewError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const { busy, error, run } = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const backend = useMemo(() => host.backend(), [host, revision]);

  useEffect(() => {
    let current = true;
    backend
      .filterOptions()
      .then((response) => {
        if (current) setCategories(response.options);
      })
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [backend]);

  const full: SearchForm = useMemo(() => {
    const filters: Record<string, string[]> = { ...form.filters };
    for (const place of places) filters[place.level] = [...(filters[place.level] ?? []), place.name];
    return { ...form, filters };
  }, [form, places]);
  const searchable = isSearchable(full);

  useEffect(() => {
    if (!searchable) {
      setPreview(null);
      return;
    }
    let current = true;
    setLoading(true);
    const timer = setTimeout(() => {
      // Through the functions' cache: going back to an earlier form state, or inserting what was previewed, asks nothing again.
      functions
        .searchResponse({ ...requestOf(full), size: Math.min(full.size, PREVIEW_ROWS) })
        .then((response) => {
          if (!current) return;
          setPreview(response);
          setPreviewError(null);
        })
        .catch((caught: unknown) => {
          if (current) setPreviewError(errorCellOf(caught).message);
        })
        .finally(() => {
          if (current) setLoading(false);
        });
    }, 400);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [full, searchable, functions, revision]);

  const set = (patch: Partial<SearchForm>) => {
    setForm({ ...form, ...patch });
  };
  const setFilter = (key: string, values: string[]) => {
    set({ filters: { ...form.filters, [key]: values } });
  };
  const formula = searchable ? formulaOf(full, host.functionName('SEARCH')) : '';
  const insertFormula = () =>
    run(async () => {
      await host.insertFormula(formula);
      setNotice('Formula inserted: it recalculates from the cache, and Refresh asks again.');
    });
  const insertValues = () =>
    run(async () => {
      const response = await functions.searchResponse(requestOf(full));
      await host.insertValues(searchTable(response.data, full.columns, true), { asTable: true });
      setNotice(`${response.data.length.toLocaleString('en-US')} rows inserted as a table.`);
    });
  const saved = host.savedQueries;
  const insertRefreshable = (target: NonNullable<typeof saved>) =>
    run(async () => {
      const query = await target.insert({ interface: 'v2', route: 'search', body: { ...requestOf(full) }, rows: full.size }, { headers: true, layout: 'crosstab' });
      setNotice(`Saved at ${query.target}: refreshed by Refresh now and on the schedule (Refresh tab).`);
    });

  return (
    <form aria-label="Build a search" onSubmit={(event) => event.preventDefault()}>
      <PlainLanguageBox
        host={host}
        base={form}
        onUse={(understood) => {
          const split = splitPlaces(understood);
          setForm(split.form);
          setPlaces(split.places);
        }}
      />
      <LocationPicker backend={backend} places={places} onChange={setPlaces} />
      {CATEGORY_FILTERS.map((key) => (
        <MultiSelect key={key} label={key === 'organization_type' ? 'Organization type' : 'Organization size'} options={categories[key] ?? []} values={form.filters[key] ?? []} onChange={(values) => setFilter(key, values)} />
      ))}
      <ChipInput label="Industry (NACE codes)" hint="e.g. 62 or 62.01" values={form.filters.nace_code ?? []} onChange={(values) => setFilter('nace_code', values)} />
      <div className="row">
        <Field label="Registered from">
          <Input type="date" value={form.registerDateFrom} onChange={(_, data) => set({ registerDateFrom: data.value })} />
        </Field>
        <Field label="Registered until">
          <Input type="date" value={form.registerDateTo} onChange={(_, data) => set({ registerDateTo: data.value })} />
        </Field>
      </div>
      <ChipInput label="Any of these words" hint="Ranked by relevance (BM25)" values={form.mustAny} onChange={(values) => set({ mustAny: values })} />
      <ChipInput label="All of these words" values={form.mustAll} onChange={(values) => set({ mustAll: values })} />
      <ChipInput label="None of these words" values={form.mustNot} onChange={(values) => set({ mustNot: values })} />
      <Field label="Describe what you are looking for" hint="Semantic search; not together with similar domains">
        <Textarea value={form.describe} disabled={form.similarTo.length > 0} onChange={(_, data) => set({ describe: data.value })} resize="vertical" />
      </Field>
      <ChipInput label="Similar to these domains" values={form.similarTo} onChange={(values) => set({ similarTo: values, ...(values.length > 0 ? { describe: '' } : {}) })} />
      {form.similarTo.length > 0 ? (
        <>
          <ChipInput label="Boost concepts" values={form.boost} onChange={(values) => set({ boost: values })} />
          <ChipInput label="Penalize concepts" values={form.penalize} onChange={(values) => set({ penalize: values })} />
        </>
      ) : null}
      <ChipInput label="Leave out these domains" values={form.excludes} onChange={(values) => set({ excludes: values })} />
      <ColumnPicker label="Columns" columns={form.columns} onChange={(columns) => set({ columns: columns.length > 0 ? columns : EMPTY_FORM.columns })} />
      <div className="row">
        <Field label="Rows">
          <SpinButton min={1} max={500} value={form.size} onChange={(_, data) => set({ size: Math.min(500, Math.max(1, data.value ?? (Number(data.displayValue) || form.size))) })} />
        </Field>
        <Field label={`Min score ${form.minScore.toFixed(2)}`}>
          <Slider min={0} max={1} step={0.05} value={form.minScore} onChange={(_, data) => set({ minScore: data.value })} />
        </Field>
      </div>
      <Field label={`Balance: keywords ${Math.round((1 - form.balance) * 100)} % · meaning ${Math.round(form.balance * 100)} %`}>
        <Slider min={0} max={1} step={0.05} value={form.balance} onChange={(_, data) => set({ balance: data.value })} />
      </Field>
      <Switch label="One organization per name (dedup)" checked={form.dedup} onChange={(_, data) => set({ dedup: data.checked })} />

      <section aria-label="Preview" aria-live="polite">
        {!searchable ? <Caption1>Choose a place, a category, words, a description or similar domains to see a preview.</Caption1> : null}
        {loading ? <Spinner size="tiny" label="Searching…" /> : null}
        <Notice intent="error" text={previewError} />
        {preview && searchable ? (
          <>
            <Caption1 data-testid="preview-summary">
              {preview.metadata.total_hits === null ? 'Many' : preview.metadata.total_hits.toLocaleString('en-US')} hits · {preview.metadata.mode} · {preview.metadata.elapsed_ms.toFixed(1)} ms
            </Caption1>
            <PreviewGrid table={searchTable(preview.data, full.columns, true)} label="Preview rows" />
          </>
        ) : null}
      </section>
      {formula ? <code className="formula" aria-label="Formula">{formula}</code> : null}
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
    </form>
  );
}
