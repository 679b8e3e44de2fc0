/**
 * CSV for spreadsheets. A cell a spreadsheet would read as a formula (starting with =, +, -, @, a
 * tab or a carriage return) is prefixed with an apostrophe, so a member's display name such as
 * `=HYPERLINK(…)` stays text in the administrator's spreadsheet (OWASP "CSV injection"; issue 27
 * point 7); a cell holding a quote, comma or line break is quoted.
 */
export function csvCell(value: string): string {
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The lines as one CSV document (CRLF line ends, RFC 4180). */
export function csvText(lines: string[][]): string {
  return lines.map((line) => line.map(csvCell).join(',')).join('\r\n') + '\r\n';
}
