/** The first rows of a table, as a real table (screen readers get headers), scrollable at the pane's narrow width. */
import { Table, TableBody, TableCell, TableHeader, TableHeaderCell, TableRow } from '@fluentui/react-components';
import { isErrorCell, plainValue, type Table as SheetTable } from '../../sheet/cells.js';

export function PreviewGrid({ table, label, maxRows = 20 }: { table: SheetTable; label: string; maxRows?: number }) {
  const [header = [], ...rows] = table;
  return (
    <div className="grid" role="region" aria-label={label} tabIndex={0}>
      <Table size="extra-small" aria-label={label}>
        <TableHeader>
          <TableRow>
            {header.map((cell, i) => (
              <TableHeaderCell key={i}>{isErrorCell(cell) ? cell.message : String(cell ?? '')}</TableHeaderCell>
            ))}
          </TableRow>
        </TableHeader>
        <TableBody>
          {rows.slice(0, maxRows).map((row, r) => (
            <TableRow key={r}>
              {row.map((cell, c) => (
                <TableCell key={c}>{String(plainValue(cell))}</TableCell>
              ))}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </div>
  );
}
