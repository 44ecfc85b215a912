import type { BilledResult } from "../../billing/billed-call";
import { Base64Bytes } from "../../http/base64-bytes";
import { GetCreditsLink } from "../layout";
import { resultFile } from "../playground-download";
import type { PlaygroundRun, RunError } from "../playground-runs";

// What a playground run's page shows above the form: the result (preview, download, cost and
// balance), what went wrong, or that the run has not finished.

function shortened(value: string | Base64Bytes): string {
  return typeof value === "string" ? value.slice(0, 80) : value.head(80);
}

/** The result without its base64 payloads, for reading. */
function readableResult(result: Record<string, unknown>): string {
  const shown = Object.fromEntries(
    Object.entries(result).map(([name, value]) => [name, (typeof value === "string" || value instanceof Base64Bytes) && value.length > 200 ? `${shortened(value)}… (${value.length} characters)` : value]),
  );
  return JSON.stringify(shown, null, 2);
}

function Failure(props: { error: RunError; promptLength?: number; maxPrompt?: number }) {
  const { error, promptLength, maxPrompt } = props;
  const tooLong = error.param === "prompt" && promptLength !== undefined && maxPrompt !== undefined && promptLength > maxPrompt;
  return (
    <section class="alert" role="alert" aria-labelledby="outcome-title" data-testid="playground-error">
      <h2 id="outcome-title">The call failed</h2>
      <p>{error.message}</p>
      {tooLong ? (
        <p data-testid="prompt-too-long">{`The prompt has ${promptLength.toLocaleString("en")} characters and the limit is ${maxPrompt.toLocaleString("en")}. Nothing was cut and nothing was charged: shorten it and run again.`}</p>
      ) : null}
      {error.code === "insufficient_credits" ? <p><GetCreditsLink /></p> : null}
      <p class="muted">{`Error code ${error.code}${error.param ? `, field ${error.param}` : ""}. Nothing is charged for refused input.`}</p>
    </section>
  );
}

function Result(props: { output: BilledResult; downloadHref: string }) {
  const { output } = props;
  const file = resultFile(output.result);
  const alt = `Result of the call: ${String(output.result.prompt ?? "the processed image")}`;
  return (
    <section class="card result" aria-labelledby="outcome-title" data-testid="playground-result">
      <h2 id="outcome-title" tabindex={-1}>Result</h2>
      <p role="status">
        <strong data-testid="playground-cost">{`${output.deductedCredits} ${output.deductedCredits === 1 ? "credit" : "credits"}`}</strong>
        {` spent; `}
        <span data-testid="playground-balance">{`${output.userCredits} left`}</span>
        {`. ${output.message}`}
      </p>
      {file && file.previewable ? <img src={file.src} alt={alt} data-testid="playground-image" /> : null}
      {file && !file.previewable ? (
        <p class="warning" data-testid="no-preview">{`${file.label} results cannot be previewed in a browser. Download the file to open it.`}</p>
      ) : null}
      {file ? (
        <p class="actions">
          <a class="button" href={props.downloadHref} download data-testid="playground-download">{`Download the ${file.label} file`}</a>
          {file.src.startsWith("http") && file.previewable ? <a href={file.src}>Open the hosted file</a> : null}
        </p>
      ) : null}
      <details>
        <summary>Response fields</summary>
        <pre><code>{readableResult(output.result)}</code></pre>
      </details>
    </section>
  );
}

export function Outcome(props: { run?: PlaygroundRun; output?: BilledResult; error?: RunError; downloadHref: string; promptLength?: number; maxPrompt?: number }) {
  if (props.error) return <Failure error={props.error} promptLength={props.promptLength} maxPrompt={props.maxPrompt} />;
  if (props.output) return <Result output={props.output} downloadHref={props.downloadHref} />;
  if (props.run?.state === "running") {
    return (
      <section class="notice" role="status" data-testid="playground-running">
        This run has not finished yet. <a href="">Reload this page</a> in a moment to see its result; it runs and is charged once.
      </section>
    );
  }
  if (props.run?.state === "abandoned") {
    return (
      <section class="alert" role="alert" data-testid="playground-abandoned">
        This run never finished (the request ended before it did). It will not run again; the <a href="/dashboard/usage">usage log</a> shows whether it was charged.
      </section>
    );
  }
  return null;
}
