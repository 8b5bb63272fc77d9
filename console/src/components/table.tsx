/**
 * The console's one data table: a caption, column headers with `scope`, optionally a row header, one row per item
 * with its own attributes (`data-entry-id`, ...), and a row that says so when there are none. Wide tables scroll in
 * a focusable region so a keyboard can reach what overflows.
 */
import type { ComponentChildren } from 'preact';

export interface Column<T> {
  header: string;
  cell: (row: T) => ComponentChildren;
  /** Figures: right-aligned, tabular digits. */
  numeric?: boolean;
}

export interface TableProps<T> {
  caption: string;
  columns: Column<T>[];
  rows: readonly T[];
  rowKey: (row: T, index: number) => string;
  /** Attributes of a row's `<tr>`. */
  rowAttributes?: (row: T) => Record<string, string>;
  /** The first column names the row (`<th scope="row">`). */
  rowHeader?: boolean;
  /** Said in place of rows when there are none. */
  empty: string;
  busy?: boolean;
}

export function Table<T>(props: TableProps<T>) {
  const { caption, columns, rows, rowKey, rowAttributes, rowHeader, empty, busy } = props;
  return (
    <div class="table-scroll" role="region" aria-label={caption} tabIndex={0}>
      <table aria-busy={busy ? 'true' : undefined}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" class={c.numeric ? 'num' : undefined} key={c.header}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length} class="empty">
                {busy ? 'Loading…' : empty}
              </td>
            </tr>
          ) : (
            rows.map((row, index) => (
              <tr key={rowKey(row, index)} {...rowAttributes?.(row)}>
                {columns.map((c, i) => {
                  const cls = c.numeric ? 'num' : undefined;
                  return rowHeader && i === 0 ? (
                    <th scope="row" class={cls} key={c.header}>
                      {c.cell(row)}
                    </th>
                  ) : (
                    <td class={cls} key={c.header}>
                      {c.cell(row)}
                    </td>
                  );
                })}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}
