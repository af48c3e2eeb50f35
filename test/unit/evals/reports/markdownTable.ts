/**
 * Splits a GitHub-flavoured Markdown table row into cells the way GFM does:
 * a backslash escapes the next character (so `\|` is content and `\\|` is a
 * backslash followed by a separator), any other `|` separates cells.
 */
export function splitRow(line: string): string[] {
  const trimmed = line.trim();
  if (!trimmed.startsWith('|') || !trimmed.endsWith('|')) throw new Error(`not a table row: ${line}`);
  const cells: string[] = [];
  let current = '';
  for (let i = 1; i < trimmed.length; i++) {
    const c = trimmed[i]!;
    if (c === '\\' && i + 1 < trimmed.length) {
      current += c + trimmed[i + 1]!;
      i++;
    } else if (c === '|') {
      cells.push(current.trim());
      current = '';
    } else current += c;
  }
  return cells;
}

/** The tables of a Markdown document: runs of lines starting with `|`. */
export function tablesOf(markdown: string): string[][][] {
  const tables: string[][][] = [];
  let current: string[][] | null = null;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('|')) {
      if (!current) tables.push((current = []));
      current.push(splitRow(line));
    } else current = null;
  }
  return tables;
}
