import type { BilledResult } from "../../billing/billed-call";
import type { PixelgateError } from "../../errors";
import { CsrfField, Page, type Viewer } from "../layout";
import { PLAYGROUND_TOOLS, type PlaygroundField, type PlaygroundTool } from "../playground-tools";

// The playground: a tab per tool, its form (multipart, so a picture can be uploaded), and the
// outcome of the last run: the image, what it cost and the balance left, or what went wrong.

export interface ModelChoice {
  modelId: string;
  label: string;
}

/** Live models per task, for the model fields. */
export type ModelChoices = Partial<Record<string, ModelChoice[]>>;

type Values = Record<string, unknown>;

function Field(props: { field: PlaygroundField; values: Values; models: ModelChoices }) {
  const { field, values } = props;
  const id = `pg-${field.name}`;
  const value = typeof values[field.name] === "string" || typeof values[field.name] === "number" ? String(values[field.name]) : "";
  if (field.kind === "image") {
    return (
      <fieldset class="card">
        <legend>{`${field.label}: upload a file, give an https URL, or use the sample`}</legend>
        <label for={`${id}-file`}>File</label>
        <input id={`${id}-file`} name={`${field.name}File`} type="file" accept="image/*" />
        <label for={`${id}-url`}>Image URL</label>
        <input id={`${id}-url`} name={`${field.name}Url`} type="url" placeholder="https://example.com/photo.jpg" inputmode="url" />
        <label class="check"><input type="checkbox" name={`${field.name}Sample`} checked={values.sample !== false} /> Use the sample picture (a red disc on white) when no file or URL is given</label>
      </fieldset>
    );
  }
  const label = (
    <label for={id}>
      {field.label}
      {field.required && !field.hint ? null : (
        <span class="hint">{[field.required ? "" : "Optional.", field.hint ?? ""].join(" ").trim()}</span>
      )}
    </label>
  );
  if (field.kind === "prompt") {
    return <>{label}<textarea id={id} name={field.name} required={field.required} maxlength={4000}>{value}</textarea></>;
  }
  if (field.kind === "select" || field.kind === "model") {
    const options: Array<[string, string]> =
      field.kind === "model" ? (props.models[field.task ?? "image"] ?? []).map((model) => [model.modelId, model.label]) : (field.options ?? []).map((option) => [option, option]);
    return (
      <>
        {label}
        <select id={id} name={field.name}>
          <option value="">Default</option>
          {options.map(([optionValue, optionLabel]) => <option value={optionValue} selected={value === optionValue}>{optionLabel}</option>)}
        </select>
      </>
    );
  }
  return (
    <>
      {label}
      <input id={id} name={field.name} type={field.kind === "number" ? "number" : "text"} min={field.min} max={field.max}
        placeholder={field.placeholder} value={value} />
    </>
  );
}

/** The picture a result carries: the hosted URL, or the data URI of compress and text-to-svg. */
function pictureOf(result: Record<string, unknown>): string | null {
  for (const name of ["imageUrl", "image", "dataUrl"]) {
    const value = result[name];
    if (typeof value === "string" && /^(https?:|data:image\/)/.test(value)) return value;
  }
  return null;
}

/** The result without its base64 payloads, for reading. */
function readableResult(result: Record<string, unknown>): string {
  const shown = Object.fromEntries(
    Object.entries(result).map(([name, value]) => [name, typeof value === "string" && value.length > 200 ? `${value.slice(0, 80)}… (${value.length} characters)` : value]),
  );
  return JSON.stringify(shown, null, 2);
}

function Outcome(props: { output?: BilledResult; error?: PixelgateError }) {
  if (props.error) {
    return (
      <section class="alert" role="alert" aria-labelledby="outcome-title" data-testid="playground-error">
        <h2 id="outcome-title">The call failed</h2>
        <p>{props.error.message}</p>
        <p class="muted">{`Error code ${props.error.code}${props.error.param ? `, field ${props.error.param}` : ""}. Nothing is charged for refused input.`}</p>
      </section>
    );
  }
  if (!props.output) return null;
  const { output } = props;
  const picture = pictureOf(output.result);
  return (
    <section class="card result" aria-labelledby="outcome-title" data-testid="playground-result">
      <h2 id="outcome-title" tabindex={-1}>Result</h2>
      <p role="status">
        <strong data-testid="playground-cost">{`${output.deductedCredits} ${output.deductedCredits === 1 ? "credit" : "credits"}`}</strong>
        {` spent; `}
        <span data-testid="playground-balance">{`${output.userCredits} left`}</span>
        {`. ${output.message}`}
      </p>
      {picture ? <img src={picture} alt={`Result of the call: ${String(output.result.prompt ?? "the processed image")}`} data-testid="playground-image" /> : null}
      {picture?.startsWith("http") ? <p><a href={picture}>Open the full image</a></p> : null}
      <details>
        <summary>Response fields</summary>
        <pre><code>{readableResult(output.result)}</code></pre>
      </details>
    </section>
  );
}

export function PlaygroundPage(props: {
  viewer: Viewer;
  entry: PlaygroundTool;
  models: ModelChoices;
  balance: number;
  values?: Values;
  output?: BilledResult;
  error?: PixelgateError;
}) {
  const { entry } = props;
  return (
    <Page title={`Playground: ${entry.label}`} viewer={props.viewer} section="playground">
      <h1>Playground</h1>
      <p class="muted">{`Runs the real API (the same as POST ${entry.tool.paths.v1}) and bills your account: you have ${props.balance} credits.`}</p>
      <nav aria-label="Tools">
        <ul class="tabs">
          {PLAYGROUND_TOOLS.map((tool) => (
            <li><a href={`/dashboard/playground/${tool.slug}`} aria-current={tool.slug === entry.slug ? "page" : undefined}>{tool.label}</a></li>
          ))}
        </ul>
      </nav>
      <Outcome output={props.output} error={props.error} />
      <section class="card" aria-labelledby="tool-title">
        <h2 id="tool-title">{`${entry.label} `}<span class="hint">{`${entry.tool.summary.replace(/\s*\([^)]*\)$/, "")}. Cost: ${entry.price}.`}</span></h2>
        <form method="post" action={`/dashboard/playground/${entry.slug}`} enctype="multipart/form-data" data-busy="Running…">
          <CsrfField token={props.viewer.csrf} />
          {entry.fields.map((field) => <Field field={field} values={props.values ?? {}} models={props.models} />)}
          <div class="actions"><button type="submit">{`Run ${entry.label.toLowerCase()}`}</button></div>
        </form>
      </section>
    </Page>
  );
}
