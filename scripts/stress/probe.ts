// Whether the batch routes and Idempotency-Key are there yet (they landed after this script was
// written): the stress drives only what answers. The probes are ordinary recorded requests, so
// they are reconciled like the rest.
import { randomUUID } from "node:crypto";
import { takeKey, type Account } from "./accounts.ts";
import { validCall } from "./calls.ts";
import { send, type Exchange } from "./client.ts";
import type { Pictures } from "./inputs.ts";
import type { Features } from "./workload.ts";

export async function probeFeatures(baseUrl: string, accounts: Account[], pictures: Pictures, exchanges: Exchange[]): Promise<Features> {
  const rng = () => 0.5;
  const key = takeKey(accounts, "normal", 3, rng);
  if (!key) throw new Error("no key for the probes");
  const batch = await send(baseUrl, { kind: "probe", key, path: "/v1/batch", batch: true, tools: [], body: JSON.stringify({ requests: [] }) });
  exchanges.push(batch);
  const call = validCall("compress_image", rng, pictures);
  const group = randomUUID();
  const draft = { key, path: "/v1/compress", batch: false, tools: [call.tool], body: JSON.stringify(call.args), idempotencyKey: `stress-probe-${group}`, group };
  exchanges.push(await send(baseUrl, { ...draft, kind: "idem-sequential" }));
  const retry = await send(baseUrl, { ...draft, kind: "idem-retry" });
  exchanges.push(retry);
  return { batch: batch.status !== 404, idempotency: retry.replayed };
}
