/** A list of words as removable chips: type and press Enter (or a comma) to add; Backspace or the chip's × removes. */
import { Field, Input, Tag, TagGroup } from '@fluentui/react-components';
import { useState } from 'react';

export function ChipInput({ label, hint, values, onChange }: { label: string; hint?: string; values: string[]; onChange: (values: string[]) => void }) {
  const [text, setText] = useState('');
  const add = () => {
    const words = text.split(',').map((word) => word.trim()).filter((word) => word !== '' && !values.includes(word));
    if (words.length > 0) onChange([...values, ...words]);
    setText('');
  };
  return (
    <Field label={label} hint={hint}>
      <Input
        value={text}
        onChange={(_, data) => {
          setText(data.value);
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter' || event.key === ',') {
            event.preventDefault();
            add();
          } else if (event.key === 'Backspace' && text === '' && values.length > 0) {
            onChange(values.slice(0, -1));
          }
        }}
        onBlur={add}
      />
      {values.length > 0 ? (
        <TagGroup aria-label={label} onDismiss={(_, data) => onChange(values.filter((value) => value !== data.value))}>
          {values.map((value) => (
            <Tag key={value} value={value} dismissible dismissIcon={{ 'aria-label': `remove ${value}` }}>
              {value}
            </Tag>
          ))}
        </TagGroup>
      ) : null}
    </Field>
  );
}
