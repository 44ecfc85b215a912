import { USAGE_SOURCES } from "../../usage/log";
import { formatDate, Page, type Viewer } from "../layout";
import { STATUS_FILTERS, TOOL_FILTERS, type UsageFilters, type UsagePage as Paged } from "../usage-query";

// The usage log: a GET form of filters (so every view is a shareable URL), the table, paging,
// and the CSV of the same filters.

function queryOf(filters: UsageFilters, page?: number): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value) params.set(name, value);
  if (page && page > 1) params.set("page", String(page));
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** Characters of a prompt shown in its row; a longer one is cut there, with the whole behind a disclosure. */
const PROMPT_SHOWN = 100;

function PromptCell(props: { prompt: string }) {
  const { prompt } = props;
  if (prompt.length <= PROMPT_SHOWN) return <td class="prompt">{prompt}</td>;
  return (
    <td class="prompt" data-testid="long-prompt">
      {`${prompt.slice(0, PROMPT_SHOWN)}…`}
      <details>
        <summary>{`All ${prompt.length.toLocaleString("en")} characters`}</summary>
        <div class="prompt-full" tabindex={0}>{prompt}</div>
      </details>
    </td>
  );
}

function Select(props: { id: keyof UsageFilters; label: string; value?: string; options: Array<[string, string]> }) {
  return (
    <div>
      <label for={`f-${props.id}`}>{props.label}</label>
      <select id={`f-${props.id}`} name={props.id}>
        <option value="">All</option>
        {props.options.map(([value, label]) => <option value={value} selected={props.value === value}>{label}</option>)}
      </select>
    </div>
  );
}

export function UsagePage(props: { viewer: Viewer; filters: UsageFilters; usage: Paged }) {
  const { filters, usage } = props;
  const filtered = Object.values(filters).some(Boolean);
  return (
    <Page title="Usage" viewer={props.viewer} section="usage">
      <h1>Usage log</h1>
      <form method="get" action="/dashboard/usage" class="card" aria-label="Filter the usage log">
        <div class="filters">
          <Select id="tool" label="Tool" value={filters.tool} options={TOOL_FILTERS.map((tool) => [tool, tool])} />
          <Select id="status" label="Status" value={filters.status} options={Object.entries(STATUS_FILTERS)} />
          <Select id="source" label="Source" value={filters.source} options={USAGE_SOURCES.map((source) => [source, source.toUpperCase()])} />
          <div>
            <label for="f-from">From (UTC)</label>
            <input id="f-from" name="from" type="date" value={filters.from ?? ""} />
          </div>
          <div>
            <label for="f-to">To (UTC)</label>
            <input id="f-to" name="to" type="date" value={filters.to ?? ""} />
          </div>
        </div>
        <div class="actions">
          <button type="submit">Apply filters</button>
          {filtered ? <a href="/dashboard/usage">Clear filters</a> : null}
          <a class="button secondary" href={`/dashboard/usage.csv${queryOf(filters)}`} download>Download CSV</a>
        </div>
      </form>
      {usage.total === 0 ? (
        <p class="card empty" data-testid="usage-empty">
          {filtered ? "No calls match these filters." : "No calls yet. Calls made with your keys, over REST, MCP or the CLI, and playground runs appear here."}
        </p>
      ) : (
        <>
          <div class="table-wrap" tabindex={0} role="region" aria-labelledby="usage-caption">
            <table data-testid="usage">
              <caption id="usage-caption">{`${usage.total} ${usage.total === 1 ? "call" : "calls"}, newest first`}</caption>
              <thead>
                <tr>
                  <th scope="col">When</th><th scope="col">Tool</th><th scope="col">Source</th><th scope="col">Status</th>
                  <th scope="col" class="num">Credits</th><th scope="col">Model</th><th scope="col">Latency</th><th scope="col">Key</th><th scope="col">Prompt</th>
                </tr>
              </thead>
              <tbody>
                {usage.rows.map((row) => (
                  <tr data-request-id={row.requestId}>
                    <td>{formatDate(row.createdAt)}</td>
                    <td>{row.tool}</td>
                    <td>{row.source}</td>
                    <td class={row.statusCode < 400 ? "ok" : "bad"}>
                      {row.status}
                      {row.errorCode ? <span class="hint"><code>{row.errorCode}</code></span> : null}
                    </td>
                    <td class="num">
                      {String(row.creditsDeducted - row.creditsRefunded)}
                      {row.creditsRefunded > 0 ? <span class="hint">{`${row.creditsRefunded} refunded`}</span> : null}
                    </td>
                    <td>{row.model}</td>
                    <td>{row.latency}</td>
                    <td><code>{row.keyPrefix}</code></td>
                    <PromptCell prompt={row.prompt} />
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav class="pager" aria-label="Pages of the usage log">
            {usage.page > 1 ? <a href={`/dashboard/usage${queryOf(filters, usage.page - 1)}`} rel="prev">← Newer</a> : <span />}
            <span>{`Page ${usage.page} of ${usage.pages}`}</span>
            {usage.page < usage.pages ? <a href={`/dashboard/usage${queryOf(filters, usage.page + 1)}`} rel="next">Older →</a> : <span />}
          </nav>
        </>
      )}
    </Page>
  );
}
