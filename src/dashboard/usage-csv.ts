import type { UsageRow } from "./usage-query";

// CSV export of the usage log (RFC 4180: CRLF line ends, fields quoted when they hold a comma,
// quote or line break). Prompts are user text: a cell starting with = + - @ (or tab/CR) is
// prefixed with an apostrophe so a spreadsheet shows it instead of running it as a formula.

const COLUMNS: Array<[string, (row: UsageRow) => string | number]> = [
  ["createdAt", (row) => row.createdAt],
  ["tool", (row) => row.tool],
  ["source", (row) => row.source],
  ["status", (row) => row.statusCode],
  ["errorCode", (row) => row.errorCode ?? ""],
  ["model", (row) => row.model],
  ["creditsDeducted", (row) => row.creditsDeducted],
  ["creditsRefunded", (row) => row.creditsRefunded],
  ["latency", (row) => row.latency],
  ["keyPrefix", (row) => row.keyPrefix],
  ["requestId", (row) => row.requestId],
  ["prompt", (row) => row.prompt],
  ["id", (row) => row.id],
];

function cell(value: string | number): string {
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function usageCsv(rows: UsageRow[]): string {
  const lines = [COLUMNS.map(([name]) => name).join(",")];
  for (const row of rows) lines.push(COLUMNS.map(([, read]) => cell(read(row))).join(","));
  return lines.join("\r\n") + "\r\n";
}
