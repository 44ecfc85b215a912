import type { ApiKeyRecord } from "../../accounts/repository";
import { CsrfField, FormAlert, formatDate, Page, type Viewer } from "../layout";

// API keys: create one (its full value shown on this response only), list them with their
// prefix and when they were last used, revoke one.

export interface KeysPageProps {
  viewer: Viewer;
  keys: ApiKeyRecord[];
  playgroundKeyId: string | null;
  /** The full key, right after creation: shown once, never again. */
  created?: { key: ApiKeyRecord; secret: string };
  notice?: string;
  problem?: string;
  baseUrl: string;
}

function CreatedKey(props: { created: NonNullable<KeysPageProps["created"]>; baseUrl: string }) {
  const { key, secret } = props.created;
  return (
    <section class="card" aria-labelledby="new-key-title">
      <h2 id="new-key-title">{`Your new key “${key.name}”`}</h2>
      <div class="warning" role="alert">
        <strong>Copy this key now. It will not be shown again.</strong> We keep only a hash of it; if you lose it,
        revoke it and create a new one.
      </div>
      <label for="new-key">API key</label>
      <div class="secret">
        <input id="new-key" type="text" readonly value={secret} data-testid="new-key" spellcheck={false} autocomplete="off" />
        <button type="button" class="secondary" data-copy="new-key" hidden>Copy</button>
      </div>
      <p class="muted">Use it as <code>Authorization: Bearer &lt;key&gt;</code> or <code>x-api-key</code>:</p>
      <pre><code>{`curl -s ${props.baseUrl}/v1/me -H "Authorization: Bearer ${secret}"`}</code></pre>
    </section>
  );
}

function KeyRow(props: { apiKey: ApiKeyRecord; csrf: string; isPlayground: boolean }) {
  const { apiKey, isPlayground } = props;
  return (
    <tr data-key-id={apiKey.id}>
      <th scope="row">
        {apiKey.name}
        {isPlayground ? <span class="hint">Bills the dashboard playground; no one holds its secret.</span> : null}
      </th>
      <td><code>{apiKey.prefix}…</code></td>
      <td>{formatDate(apiKey.createdAt)}</td>
      <td>{formatDate(apiKey.lastUsedAt)}</td>
      <td>
        {apiKey.revokedAt ? (
          <span class="muted">{`Revoked ${formatDate(apiKey.revokedAt)}`}</span>
        ) : (
          <form method="post" action={`/dashboard/keys/${apiKey.id}/revoke`} data-confirm={`Revoke “${apiKey.name}”? Requests with it will fail at once.`}>
            <CsrfField token={props.csrf} />
            <button type="submit" class="danger" aria-label={`Revoke key ${apiKey.name} (${apiKey.prefix})`}>Revoke</button>
          </form>
        )}
      </td>
    </tr>
  );
}

export function KeysPage(props: KeysPageProps) {
  const { viewer } = props;
  // Active keys first, newest first within each group.
  const keys = [...props.keys].sort((a, b) => Number(!!a.revokedAt) - Number(!!b.revokedAt) || b.createdAt.localeCompare(a.createdAt));
  return (
    <Page title="API keys" viewer={viewer} section="keys">
      <h1>API keys</h1>
      {props.notice ? <p class="notice" role="status">{props.notice}</p> : null}
      <FormAlert message={props.problem} />
      {props.created ? <CreatedKey created={props.created} baseUrl={props.baseUrl} /> : null}
      <section class="card" aria-labelledby="create-title">
        <h2 id="create-title">Create a key</h2>
        <p class="muted">One key works for REST, MCP and the CLI, and draws on your account's credits.</p>
        <form method="post" action="/dashboard/keys">
          <CsrfField token={viewer.csrf} />
          <label for="key-name">Name <span class="hint">Where you will use it, e.g. “laptop” or “CI”.</span></label>
          <input id="key-name" name="name" type="text" required maxlength={100} autocomplete="off" />
          <div class="actions"><button type="submit">Create key</button></div>
        </form>
      </section>
      {/* Not a labelled section: the table's scroll region is the one landmark named "Your keys". */}
      <section>
        <h2 id="list-title">Your keys</h2>
        {keys.length === 0 ? (
          <p class="card empty">You have no API keys yet. Create one above to call the API.</p>
        ) : (
          <div class="table-wrap" tabindex={0} role="region" aria-labelledby="list-title">
            <table data-testid="keys">
              <thead>
                <tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th></tr>
              </thead>
              <tbody>
                {keys.map((apiKey) => <KeyRow apiKey={apiKey} csrf={viewer.csrf} isPlayground={apiKey.id === props.playgroundKeyId} />)}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </Page>
  );
}
