/** The output columns, chosen from the selectable ones, in the order picked. */
import { Dropdown, Field, Option } from '@fluentui/react-components';
import { SELECTABLE_COLUMNS, type SelectableColumn } from '../../contract/common.js';

export function ColumnPicker({ label, columns, onChange }: { label: string; columns: SelectableColumn[]; onChange: (columns: SelectableColumn[]) => void }) {
  return (
    <Field label={label}>
      <Dropdown multiselect selectedOptions={columns} value={columns.join(', ')} onOptionSelect={(_, data) => onChange(data.selectedOptions as SelectableColumn[])}>
        {SELECTABLE_COLUMNS.map((column) => (
          <Option key={column} value={column}>
            {column}
          </Option>
        ))}
      </Dropdown>
    </Field>
  );
}
