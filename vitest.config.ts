import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import {
  FAKE_UPSTREAM_BINDINGS,
  FAKE_WORKERS_AI_ENTRYPOINT,
  FAKE_WORKERS_AI_WORKER,
  fakeWorkersAiWorker,
  upstreamOutbound,
} from "./test/upstream/outbound.ts";

// Tests run inside workerd with real D1, R2 and Durable Objects (wrangler.toml bindings).
// Only what lies outside the service is faked, and only at the HTTP boundary: upstream model
// providers by HTTP servers the tests start, public image hosts by the outbound service below.
export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  return {
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
      include: ["test/**/*.test.ts"],
      setupFiles: ["./test/setup/apply-migrations.ts"],
      testTimeout: 30_000,
    },
  };
});
