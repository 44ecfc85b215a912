import type { BilledResult } from "../../billing/billed-call";
import type { JSX } from "hono/jsx/jsx-runtime";
import { CsrfField, Page, type Viewer } from "../layout";
import { MAX_UPLOAD_BYTES } from "../playground-call";
import type { KeptUpload, PlaygroundRun, RunError } from "../playground-runs";
import { PLAYGROUND_TOOLS, type PlaygroundField, type PlaygroundTool } from "../playground-tools";
import { Outcome } from "./playground-outcome";

// The playground: a tab per tool, its form (multipart, so a picture can be uploaded; a hidden
// run token makes a resubmission show the first run instead of running again), and on a run's
// page the outcome of that run above the same form, refilled, with its uploaded file kept.

export interface ModelChoice {
  modelId: string;
  label: string;
}

/** Live models per task, for the model fields. */
export type ModelChoices = Partial<Record<string, ModelChoice[]>>;

/** A price as the form says it: "model cost" points at the model list, which shows each model's price. */
const costWords = (price: string) => price.replace(/^model cost/, "the price of the chosen model (beside each model below)");

/** The form's text fields as typed; undefined on a fresh form. */
type Values = Record<string, string> | undefined;

function ImageField(props: { field: PlaygroundField; values: Values; upload?: KeptUpload | null }) {
  const { field, values, upload } = props;
  const id = `pg-${field.name}`;
  // A fresh form offers the sample; a refilled one keeps what that run used.
  const sample = values === undefined ? !upload : values[`${field.name}Sample`] === "on" && !upload;
  return (
    <fieldset class="card">
      <legend>{`${field.label}: upload a file, give an https URL, or use the sample`}</legend>
      {upload ? (
        <label class="check"><input type="checkbox" name={`${field.name}Upload`} value={upload.key} checked data-testid="kept-upload" />{` Use “${upload.name}” again (the file uploaded for this run)`}</label>
      ) : null}
      <label for={`${id}-file`}>{upload ? "Or another file" : "File"}</label>
      <input id={`${id}-file`} name={`${field.name}File`} type="file" accept="image/*" data-maxbytes={MAX_UPLOAD_BYTES} aria-describedby={`${id}-file-size`} />
      <p id={`${id}-file-size`} class="hint">{`Up to ${MAX_UPLOAD_BYTES / 1024 / 1024} MB.`}</p>
      <label for={`${id}-url`}>Image URL</label>
      <input id={`${id}-url`} name={`${field.name}Url`} type="url" placeholder="https://example.com/photo.jpg" inputmode="url" value={values?.[`${field.name}Url`] ?? ""} />
      <label class="check"><input type="checkbox" name={`${field.name}Sample`} checked={sample} /> Use the sample picture (a red disc on white) when no file or URL is given</label>
    </fieldset>
  );
}

function PromptField(props: { field: PlaygroundField; label: JSX.Element; value: string }) {
  const { field, value } = props;
  const id = `pg-${field.name}`;
  const max = field.maxLength;
  const over = max !== undefined && value.length > max;
  return (
    <>
      {props.label}
      {/* No maxlength: a browser would cut a pasted prompt silently. The count warns instead, and the API refuses an over-long prompt at no charge. */}
      <textarea id={id} name={field.name} required={field.required} data-maxchars={max} aria-describedby={max ? `${id}-count` : undefined} aria-invalid={over ? "true" : undefined}>{value}</textarea>
      {max ? (
        <p id={`${id}-count`} class={over ? "hint error" : "hint"} data-testid="prompt-count">
          {`${value.length.toLocaleString("en")} / ${max.toLocaleString("en")} characters${over ? `: ${(value.length - max).toLocaleString("en")} too many` : ""}`}
        </p>
      ) : null}
    </>
  );
}

function Field(props: { field: PlaygroundField; values: Values; models: ModelChoices; upload?: KeptUpload | null }) {
  const { field } = props;
  const id = `pg-${field.name}`;
  const value = props.values?.[field.name] ?? "";
  if (field.kind === "image") return <ImageField field={field} values={props.values} upload={props.upload} />;
  const label = (
    <label for={id}>
      {field.label}
      {field.required && !field.hint ? null : (
        <span class="hint">{[field.required ? "" : "Optional.", field.hint ?? ""].join(" ").trim()}</span>
      )}
    </label>
  );
  if (field.kind === "prompt") return <PromptField field={field} label={label} value={value} />;
  if (field.kind === "select" || field.kind === "model") {
    const options: Array<[string, string]> =
      field.kind === "model" ? (props.models[field.task ?? "image"] ?? []).map((model) => [model.modelId, model.label]) : (field.options ?? []).map((option) => [option, option]);
    return (
      <>
        {label}
        <select id={id} name={field.name} required={field.required}>
          <option value="">{field.required ? "Choose…" : "Default"}</option>
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

export function PlaygroundPage(props: {
  viewer: Viewer;
  entry: PlaygroundTool;
  models: ModelChoices;
  balance: number;
  /** The token the form submits with: new on every render. */
  runToken: string;
  run?: PlaygroundRun;
  values?: Values;
  upload?: KeptUpload | null;
  output?: BilledResult;
  error?: RunError;
  /** The form at this address was sent already: where its run is. */
  used?: { href: string };
}) {
  const { entry, run, used } = props;
  // Once the form has run (its run's page, or its own address revisited), the button says it runs again.
  const runLabel = `Run ${entry.label.toLowerCase()}${run || used ? " again" : ""}`;
  const prompt = entry.fields.find((field) => field.kind === "prompt");
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
      {used ? (
        <section class="notice" role="status" data-testid="form-used">
          {"You already ran this form. "}<a href={used.href}>See that run</a>{" (it was charged once). "}
          {`“${runLabel}” below starts a new run, charged again.`}
        </section>
      ) : null}
      <Outcome run={run} output={props.output} error={props.error} downloadHref={run ? `/dashboard/playground/${entry.slug}/runs/${run.token}/download` : ""}
        promptLength={props.values?.prompt?.length} maxPrompt={prompt?.maxLength} />
      <section class="card" aria-labelledby="tool-title">
        <h2 id="tool-title">{`${entry.label} `}<span class="hint">{`${entry.tool.summary.replace(/\s*\([^)]*\)$/, "")}. Cost: ${costWords(entry.price)}.`}</span></h2>
        <form method="post" action={`/dashboard/playground/${entry.slug}`} enctype="multipart/form-data" data-busy="Running…">
          <CsrfField token={props.viewer.csrf} />
          <input type="hidden" name="run" value={props.runToken} autocomplete="off" />
          {entry.fields.map((field) => <Field field={field} values={props.values} models={props.models} upload={props.upload} />)}
          <div class="actions"><button type="submit">{runLabel}</button></div>
        </form>
      </section>
    </Page>
  );
}
