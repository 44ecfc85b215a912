import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import {
  FAKE_UPSTREAM_BINDINGS,
  FAKE_WORKERS_AI_ENTRYPOINT,
  FAKE_WORKERS_AI_WORKER,
  fakeWorkersAiWorker,
  upstreamOutbound,
} from "./test/upstream/outbound.ts";
import { FAKE_OAUTH_BINDINGS } from "./test/dashboard/fake-oauth.ts";

// The CLI and the stdio MCP server run in Node, as child processes against a real local server
// (wrangler dev) that the global setup starts; none of the workerd setup applies to them.
const CLI_PROJECT: TestProjectInlineConfiguration = {
  extends: false,
  test: {
    name: "cli",
    include: ["test/cli/**/*.test.ts"],
    environment: "node",
    globalSetup: ["./test/cli/setup/server.ts"],
    testTimeout: 120_000,
    hookTimeout: 200_000,
    // One file at a time: each spawns CLI processes against the one server, on few cores.
    fileParallelism: false,
  },
};

// The dashboard in Debian's Chromium (playwright-core, never a downloaded browser) against the
// same kind of local server as the CLI tests, started by the same global setup.
const BROWSER_PROJECT: TestProjectInlineConfiguration = {
  extends: false,
  test: {
    name: "browser",
    include: ["test/browser/**/*.test.ts"],
    environment: "node",
    globalSetup: ["./test/cli/setup/server.ts"],
    testTimeout: 120_000,
    hookTimeout: 200_000,
    fileParallelism: false,
  },
};

// Checks of committed build artefacts (the native WASM manifest), of the repository's own check
// scripts (the layer order) and of the Node scripts that read the repository (the deploy dry
// run), in plain Node: they read files.
const NATIVE_PROJECT: TestProjectInlineConfiguration = {
  extends: false,
  test: { name: "native", include: ["test/native/**/*.test.ts", "test/scripts/**/*.test.ts"], environment: "node" },
};

// Tests run inside workerd with real D1, R2 and Durable Objects (wrangler.toml bindings).
// Only what lies outside the service is faked, and only at the HTTP boundary: upstream model
// providers by HTTP servers the tests start, public image hosts by the outbound service below.
export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  const workerd: TestProjectInlineConfiguration = {
    extends: false,
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            ADMIN_TOKEN: "test-admin-token",
            PUBLIC_BASE_URL: "https://pixelgate.test",
            // Providers point at the fake upstream (test/upstream); a short limit keeps timeout tests quick.
            ...FAKE_UPSTREAM_BINDINGS,
            UPSTREAM_TIMEOUT_MS: "2000",
            // GitHub and Google sign-in, against the fake OAuth server (test/dashboard/fake-oauth.ts).
            ...FAKE_OAUTH_BINDINGS,
          },
          // Every outbound fetch() of the worker leaves workerd as real HTTP and reaches this Node
          // function: *.upstream.test goes to the fake upstream server (test/upstream/server.ts);
          // the fake public image host (images/mirror.pixelgate.test) used by the input-image tests
          // answers its own hosts and forwards every other request to the network unchanged.
          outboundService: upstreamOutbound,
          // `env.AI`: an extra worker whose run() forwards to the fake's Workers AI REST endpoint.
          serviceBindings: { AI: { name: FAKE_WORKERS_AI_WORKER, entrypoint: FAKE_WORKERS_AI_ENTRYPOINT } },
          workers: [fakeWorkersAiWorker(path.join(import.meta.dirname, "test/upstream/workers-ai-binding.js"))],
        },
      }),
    ],
    test: {
      name: "workerd",
      include: ["test/**/*.test.ts"],
      exclude: [...configDefaults.exclude, "test/cli/**", "test/browser/**", "test/native/**", "test/scripts/**"],
      setupFiles: ["./test/setup/apply-migrations.ts", "./test/setup/unbudgeted-work.ts"],
      testTimeout: 30_000,
    },
  };
  return { test: { projects: [workerd, CLI_PROJECT, BROWSER_PROJECT, NATIVE_PROJECT] } };
});
