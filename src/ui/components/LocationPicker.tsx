/**
 * Places as chips with autocomplete from /locations/search (typo-tolerant: "Londn" finds London). A
 * chosen place becomes a filter on its level (country, state, region, district or municipality).
 */
import { Combobox, Field, Option, Tag, TagGroup } from '@fluentui/react-components';
import { useEffect, useState } from 'react';
import type { SheetBackend } from '../../sheet/backend.js';
import type { PlaceChoice } from '../search-form.js';

export type { PlaceChoice } from '../search-form.js';

interface Suggestion extends PlaceChoice {
  label: string;
}

export function LocationPicker({ backend, places, onChange }: { backend: SheetBackend; places: PlaceChoice[]; onChange: (places: PlaceChoice[]) => void }) {
  const [text, setText] = useState('');
  const [suggestions, setSuggestions] = useState<Suggestion[]>([]);
  // Controlled: the list opens when suggestions arrive for what was typed (they come asynchronously).
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const query = text.trim();
    if (query.length < 2) {
      setSuggestions([]);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      backend
        .locationSearch({ q: query, limit: 8 })
        .then((response) => {
          if (!current) return;
          setSuggestions(
            response.items
              // Continents are not a filter of the v2 interface.
              .filter((item) => item.location_type !== 'continent')
              .map((item) => ({ level: item.location_type, name: item.name, label: `${item.name} (${item.location_type}: ${item.path})` })),
          );
        })
        .catch(() => {
          if (current) setSuggestions([]);
        });
    }, 200);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [text, backend]);
  return (
    <Field label="Places" hint="Type two letters of a country, state, region or town">
      <Combobox
        freeform
        value={text}
        placeholder="e.g. Bayern"
        open={open && suggestions.length > 0}
        onOpenChange={(_, data) => {
          setOpen(data.open);
        }}
        onChange={(event) => {
          setText(event.target.value);
          setOpen(true);
        }}
        onOptionSelect={(_, data) => {
          const picked = suggestions.find((suggestion) => suggestion.label === data.optionValue);
          if (picked && !places.some((place) => place.level === picked.level && place.name === picked.name)) onChange([...places, { level: picked.level, name: picked.name }]);
          setText('');
          setOpen(false);
        }}
      >
        {suggestions.map((suggestion) => (
          <Option key={suggestion.label} value={suggestion.label}>
            {suggestion.label}
          </Option>
        ))}
      </Combobox>
      {places.length > 0 ? (
        <TagGroup aria-label="Chosen places" onDismiss={(_, data) => onChange(places.filter((place) => `${place.level}:${place.name}` !== data.value))}>
          {places.map((place) => (
            <Tag key={`${place.level}:${place.name}`} value={`${place.level}:${place.name}`} dismissible dismissIcon={{ 'aria-label': `remove ${place.name}` }}>
              {place.name} · {place.level}
            </Tag>
          ))}
        </TagGroup>
      ) : null}
    </Field>
  );
}
