import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { fakeImageHostOutbound } from "./test/input/fake-image-host.ts";

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
          },
          // Every outbound fetch() of the worker leaves workerd as real HTTP and reaches this Node
          // function: it answers the fake public image host (images/mirror.pixelgate.test) used by
          // the input-image tests and forwards every other request to the network unchanged.
          outboundService: fakeImageHostOutbound,
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
