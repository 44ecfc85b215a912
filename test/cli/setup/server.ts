// globalSetup of the `cli` vitest project: a real local Pixelgate (wrangler dev on wrangler.toml,
// D1 migrated into a temporary --persist-to directory) with a known operator token, so each test
// file can make its own accounts and keys. Payments are on, against a fake Stripe (test/stripe)
// that delivers its signed events to this server's webhook endpoint. The CLI and the stdio MCP server are then run as child
// processes against it, exactly as a user runs them.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";
import { ChildGroup, childEnv, freePort, REPO_ROOT, waitUntilServing } from "../../../scripts/bench/processes.ts";
import { startFakeStripe, type FakeStripe } from "../../stripe/fake-stripe.ts";
import { FAKE_STRIPE_SECRET_KEY, FAKE_STRIPE_WEBHOOK_SECRET } from "../../stripe/vocabulary.ts";

declare module "vitest" {
  export interface ProvidedContext {
    pixelgateUrl: string;
    /** Operator token: each test file makes its own accounts and keys (test/cli/support.ts). */
    adminToken: string;
    /** The fake Stripe the server's payments go to (its hosted Checkout pages and /_fake controls). */
    fakeStripeUrl: string;
  }
}

const ADMIN_TOKEN = "cli-test-admin-token";
const START_TIMEOUT_MS = 180_000;
const execFileAsync = promisify(execFile);

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const persistTo = mkdtempSync(path.join(os.tmpdir(), "pixelgate-cli-test-"));
  const removeState = () => rmSync(persistTo, { recursive: true, force: true });
  let group: ChildGroup | undefined;
  let stripe: FakeStripe | undefined;
  try {
    // execFile, not runCommand: its timeout is cleared when the command ends, where runCommand's
    // pending timer would keep vitest's process alive after the run.
    await execFileAsync("wrangler", ["d1", "migrations", "apply", "DB", "--local", "--persist-to", persistTo], {
      cwd: REPO_ROOT,
      env: childEnv({ CI: "true" }),
      timeout: START_TIMEOUT_MS,
    });
    const [port, inspectorPort] = [await freePort(), await freePort()];
    const baseUrl = `http://127.0.0.1:${port}`;
    stripe = await startFakeStripe({ webhookUrl: `${baseUrl}/webhooks/stripe` });
    group = new ChildGroup("wrangler dev (cli tests)", "wrangler", [
      "dev", "--persist-to", persistTo, "--ip", "127.0.0.1", "--port", String(port),
      "--inspector-port", String(inspectorPort), "--show-interactive-dev-session=false",
      "--var", `ADMIN_TOKEN:${ADMIN_TOKEN}`, "--var", `PUBLIC_BASE_URL:${baseUrl}`,
      "--var", `STRIPE_SECRET_KEY:${FAKE_STRIPE_SECRET_KEY}`, "--var", `STRIPE_WEBHOOK_SECRET:${FAKE_STRIPE_WEBHOOK_SECRET}`,
      "--var", `STRIPE_API_URL:${stripe.origin}`,
    ], childEnv({ CI: "true" }));
    if (!(await waitUntilServing(`${baseUrl}/v1`, group, START_TIMEOUT_MS))) {
      throw new Error(`wrangler dev did not start:\n${group.tail()}`);
    }
    project.provide("pixelgateUrl", baseUrl);
    project.provide("adminToken", ADMIN_TOKEN);
    project.provide("fakeStripeUrl", stripe.origin);
  } catch (error) {
    await group?.stop();
    await stripe?.close();
    removeState();
    throw error;
  }
  const running = group;
  const fakeStripe = stripe;
  return async () => {
    // Within vitest's 10 s teardown limit: wrangler gets 3 s to stop workerd, then the group is killed.
    await running.stop(3_000);
    await fakeStripe.close();
    removeState();
  };
}
