/**
 * Rows of cells as aligned columns (the first row is usually the header): each column as wide as
 * its widest cell, two spaces between, the last column left unpadded and no trailing blanks.
 */
export function columns(rows: readonly (readonly string[])[]): string {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => r[i]?.length ?? 0)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n');
}
