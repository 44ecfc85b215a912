import { TOOLS } from "../tools/registry";
import { ledgerOf } from "../accounts/ledger";
import type { Env } from "../env";
import { usageDatabaseFor } from "../usage/database";
import { newestFirst, recordOfRow, usageEntryOf, USAGE_SOURCES, type UsageEntry, type UsageLogRow, type UsageRecord, type UsageSource } from "../usage/log";

// The usage log as the dashboard reads it: filtered by tool, status, source and date (UTC
// days), paged, exported as CSV, and summed per day for the spend chart. /v1/usage stays the
// API's view (newest 100); this one reaches the whole history of the account.

export const PAGE_SIZE = 25;
export const CSV_MAX_ROWS = 10_000;
export const CHART_DAYS = 30;

/** Every value the tool filter offers: the registry's tools, and whole batches refused at once. */
export const TOOL_FILTERS: readonly string[] = [...TOOLS.map((tool) => tool.name), "batch"];
export const STATUS_FILTERS = { success: "Succeeded (2xx)", failed: "Failed (4xx and 5xx)" } as const;

export interface UsageFilters {
  tool?: string;
  /** "success", "failed", or one HTTP status code. */
  status?: string;
  source?: UsageSource;
  /** Inclusive UTC days, YYYY-MM-DD. */
  from?: string;
  to?: string;
}

/** A log entry as the dashboard shows it: the API's entry plus the bare status code for filtering. */
export interface UsageRow extends UsageEntry {
  statusCode: number;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function validDay(value: string | undefined): string | undefined {
  return value && DAY.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) ? value : undefined;
}

/** The filters from a query string; values that are not on offer are dropped. */
export function filtersOf(query: Record<string, string | undefined>): UsageFilters {
  const filters: UsageFilters = {};
  if (query.tool && TOOL_FILTERS.includes(query.tool)) filters.tool = query.tool;
  if (query.status && (query.status in STATUS_FILTERS || /^[1-5]\d\d$/.test(query.status))) filters.status = query.status;
  if (query.source && (USAGE_SOURCES as readonly string[]).includes(query.source)) filters.source = query.source as UsageSource;
  filters.from = validDay(query.from);
  filters.to = validDay(query.to);
  return filters;
}

function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

function whereOf(accountId: string, filters: UsageFilters): { sql: string; params: unknown[] } {
  const clauses = ["account_id = ?"];
  const params: unknown[] = [accountId];
  if (filters.tool) (clauses.push("tool = ?"), params.push(filters.tool));
  if (filters.source) (clauses.push("source = ?"), params.push(filters.source));
  if (filters.status === "success") clauses.push("status_code BETWEEN 200 AND 299");
  else if (filters.status === "failed") clauses.push("status_code >= 400");
  else if (filters.status) (clauses.push("status_code = ?"), params.push(Number(filters.status)));
  // Timestamps are ISO strings in UTC, so day bounds compare as text.
  if (filters.from) (clauses.push("created_at >= ?"), params.push(filters.from));
  if (filters.to) (clauses.push("created_at < ?"), params.push(nextDay(filters.to)));
  return { sql: clauses.join(" AND "), params };
}

function toUsageRow(record: UsageRecord): UsageRow {
  return { ...usageEntryOf(record), statusCode: record.statusCode };
}

export interface UsagePage {
  rows: UsageRow[];
  total: number;
  page: number;
  pages: number;
}

/** The same filters, for entries the ledger has not delivered to D1 yet. */
function matches(record: UsageRecord, filters: UsageFilters): boolean {
  const status = filters.status;
  return (
    (!filters.tool || record.tool === filters.tool) &&
    (!filters.source || record.source === filters.source) &&
    (!status || (status === "success" ? record.statusCode < 300 : status === "failed" ? record.statusCode >= 400 : record.statusCode === Number(status))) &&
    (!filters.from || record.createdAt >= filters.from) &&
    (!filters.to || record.createdAt < nextDay(filters.to))
  );
}

/**
 * One page (1-based; pages past the end show the last one), newest first. The first page also
 * shows the calls whose entries are still on their way from the account's ledger to D1 (a second
 * or so), so a call made a moment ago is there.
 */
export async function usagePage(env: Env, accountId: string, filters: UsageFilters, page: number): Promise<UsagePage> {
  const db = usageDatabaseFor(env, accountId);
  const where = whereOf(accountId, filters);
  const counted = await db.prepare(`SELECT COUNT(*) AS n FROM usage_log WHERE ${where.sql}`).bind(...where.params).first<{ n: number }>();
  const total = counted?.n ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const current = Math.min(Math.max(1, Number.isSafeInteger(page) ? page : 1), pages);
  const { results } = await db
    .prepare(`SELECT * FROM usage_log WHERE ${where.sql} ORDER BY created_at DESC, seq DESC LIMIT ? OFFSET ?`)
    .bind(...where.params, PAGE_SIZE, (current - 1) * PAGE_SIZE)
    .all<UsageLogRow>();
  let records = results.map(recordOfRow);
  let undelivered = 0;
  if (current === 1) {
    const known = new Set(records.map((record) => record.id));
    const fresh = (await ledgerOf(env, accountId).undeliveredUsage(PAGE_SIZE)).filter((record) => !known.has(record.id) && matches(record, filters));
    undelivered = fresh.length;
    records = [...fresh, ...records].sort(newestFirst).slice(0, PAGE_SIZE);
  }
  return { rows: records.map(toUsageRow), total: total + undelivered, page: current, pages };
}

/** Every matching entry, newest first, up to CSV_MAX_ROWS. */
export async function usageForExport(db: D1Database, accountId: string, filters: UsageFilters): Promise<UsageRow[]> {
  const where = whereOf(accountId, filters);
  const { results } = await db
    .prepare(`SELECT * FROM usage_log WHERE ${where.sql} ORDER BY created_at DESC, seq DESC LIMIT ?`)
    .bind(...where.params, CSV_MAX_ROWS)
    .all<UsageLogRow>();
  return results.map((row) => toUsageRow(recordOfRow(row)));
}

export interface DailySpend {
  day: string;
  credits: number;
}

/** Credits spent (taken minus refunded) per UTC day, the last CHART_DAYS days up to `today`, zeros included. */
export async function dailySpend(db: D1Database, accountId: string, now = new Date()): Promise<DailySpend[]> {
  const today = Date.parse(now.toISOString().slice(0, 10) + "T00:00:00Z");
  const days = Array.from({ length: CHART_DAYS }, (_, i) => new Date(today - (CHART_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10));
  const { results } = await db
    .prepare(
      `SELECT substr(created_at, 1, 10) AS day, SUM(credits_deducted - credits_refunded) AS credits
         FROM usage_log WHERE account_id = ? AND created_at >= ? AND created_at < ?
        GROUP BY day`,
    )
    .bind(accountId, days[0], nextDay(days[days.length - 1]!))
    .all<{ day: string; credits: number }>();
  const byDay = new Map(results.map((row) => [row.day, row.credits]));
  return days.map((day) => ({ day, credits: byDay.get(day) ?? 0 }));
}
