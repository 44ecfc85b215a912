import type { D1Migration } from "cloudflare:test";
import type { Env as PixelgateEnv } from "../src/env";

// Types for `cloudflare:workers` inside tests: the worker's bindings plus the test-only ones.
declare global {
  namespace Cloudflare {
    interface Env extends PixelgateEnv {
      TEST_MIGRATIONS: D1Migration[];
    }
    interface GlobalProps {
      mainModule: typeof import("../src/index");
      durableNamespaces: "AccountLedger";
    }
  }
}
