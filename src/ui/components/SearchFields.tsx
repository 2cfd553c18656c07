/**
 * The search form's fields: plain words, places, categories, industry, register dates, keywords, a
 * description or similar domains, excluded domains, columns, rows, min score, balance and dedup. Each
 * field reports its change as a named action of search-builder.ts.
 */
import { Dropdown, Field, Input, Option, Slider, SpinButton, Switch, Textarea } from '@fluentui/react-components';
import { useEffect, useState, type Dispatch } from 'react';
import type { SheetBackend } from '../../sheet/backend.js';
import type { Host } from '../host.js';
import { SEARCH_LIMITS } from '../../contract/v2/search.js';
import type { SearchBuilder, SearchBuilderAction } from '../search-builder.js';
import type { SearchForm } from '../search-form.js';
import { ChipInput } from './ChipInput.js';
import { ColumnPicker } from './ColumnPicker.js';
import { LocationPicker } from './LocationPicker.js';
import { PlainLanguageBox } from './PlainLanguageBox.js';

const CATEGORY_FILTERS = ['organization_type', 'organization_size'] as const;

type FilterOptions = Record<string, { value: string; count: number }[]>;

/** The category filters' values and counts, asked once for each backend (none while they are not known). */
function useFilterOptions(backend: SheetBackend): FilterOptions {
  const [options, setOptions] = useState<FilterOptions>({});
  useEffect(() => {
    let current = true;
    backend
      .filterOptions()
      .then((response) => {
        if (current) setOptions(response.options);
      })
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [backend]);
  return options;
}

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

export function SearchFields({ host, backend, builder, dispatch }: { host: Host; backend: SheetBackend; builder: SearchBuilder; dispatch: Dispatch<SearchBuilderAction> }) {
  const categories = useFilterOptions(backend);
  const { form, places } = builder;
  const set = (patch: Partial<SearchForm>) => dispatch({ type: 'edited', patch });
  const setFilter = (key: string, values: string[]) => dispatch({ type: 'filterChosen', key, values });
  return (
    <>
      <PlainLanguageBox host={host} base={form} onUse={(understood) => dispatch({ type: 'understood', form: understood })} />
      <LocationPicker backend={backend} places={places} onChange={(chosen) => dispatch({ type: 'placesChosen', places: chosen })} />
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
      <ChipInput label="Similar to these domains" values={form.similarTo} onChange={(domains) => dispatch({ type: 'similarChosen', domains })} />
      {form.similarTo.length > 0 ? (
        <>
          <ChipInput label="Boost concepts" values={form.boost} onChange={(values) => set({ boost: values })} />
          <ChipInput label="Penalize concepts" values={form.penalize} onChange={(values) => set({ penalize: values })} />
        </>
      ) : null}
      <ChipInput label="Leave out these domains" values={form.excludes} onChange={(values) => set({ excludes: values })} />
      <ColumnPicker label="Columns" columns={form.columns} onChange={(columns) => dispatch({ type: 'columnsChosen', columns })} />
      <div className="row">
        <Field label="Rows">
          <SpinButton min={SEARCH_LIMITS.sizeMin} max={SEARCH_LIMITS.sizeMax} value={form.size} onChange={(_, data) => dispatch({ type: 'rowsTyped', value: data.value, text: data.displayValue })} />
        </Field>
        <Field label={`Min score ${form.minScore.toFixed(2)}`}>
          <Slider min={0} max={1} step={0.05} value={form.minScore} onChange={(_, data) => set({ minScore: data.value })} />
        </Field>
      </div>
      <Field label={`Balance: keywords ${Math.round((1 - form.balance) * 100)} % · meaning ${Math.round(form.balance * 100)} %`}>
        <Slider min={0} max={1} step={0.05} value={form.balance} onChange={(_, data) => set({ balance: data.value })} />
      </Field>
      <Switch label="One organization per name (dedup)" checked={form.dedup} onChange={(_, data) => set({ dedup: data.checked })} />
    </>
  );
}
