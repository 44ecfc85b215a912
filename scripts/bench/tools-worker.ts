// The bench worker of `npm run bench:tools`: the real app, plus a way to run one tool's provider
// stage on its own. The bench times both from outside (workerd's clock only moves on I/O, so
// CPU-bound provider work cannot be timed from inside).
//
//   POST /__bench/prepare   {tool, args}  -> {id}   validates and prepares exactly as the API does
//   POST /__bench/provider/{id}           -> {bytes} runs only the provider stage (runModel), as
//                                                    many times as asked, on that prepared call
//   GET  /__bench/noop                    -> "ok"    the HTTP round trip, for reference
//   POST /__bench/unbilled/{tool}  {args} -> the tool's result: the same work as the API call
//                                            (validate, prepare, run) without key, ledger or log
import app from "../../src/index";
import type { Env } from "../../src/env";
import type { Model } from "../../src/models/catalog";
import { workBudgetOf } from "../../src/billing/billed-call";
import { runModel, type ModelOutput, type ProviderTask } from "../../src/providers";
import { TOOLS } from "../../src/tools/registry";
import type { ToolContext } from "../../src/tools/types";

export { AccountLedger } from "../../durable-objects/account-ledger";

/** What the model tools' prepare() returns: the task, its model, and for generate-transparent the cut-out model. */
interface PreparedModelCall {
  task: ProviderTask;
  model: Model;
  cutoutModel?: Model;
}

const prepared = new Map<string, PreparedModelCall>();

async function prepare(request: Request, env: Env): Promise<Response> {
  const { tool: name, args } = (await request.json()) as { tool: string; args: unknown };
  const tool = TOOLS.find((candidate) => candidate.name === name);
  if (!tool) return Response.json({ error: `no tool ${name}` }, { status: 404 });
  const ctx = { env, family: "v1", requestId: "bench", source: "rest", baseUrl: "http://bench", startedAt: Date.now() } as unknown as ToolContext;
  const call = (await tool.prepare(tool.input("v1").parse(args), ctx)) as PreparedModelCall;
  if (!call.task || !call.model) return Response.json({ error: `${name} has no provider stage` }, { status: 400 });
  const id = crypto.randomUUID();
  prepared.set(id, call);
  return Response.json({ id });
}

async function providerStage(id: string, env: Env): Promise<Response> {
  const call = prepared.get(id);
  if (!call) return Response.json({ error: "unknown id" }, { status: 404 });
  const caller = { env, baseUrl: "http://bench", waitUntil: () => {} }; // the bench worker calls only the local provider
  const output = await runModel(caller, call.model, call.task);
  let last: ModelOutput = output;
  if (call.cutoutModel && output.kind === "image") {
    last = await runModel(caller, call.cutoutModel, { kind: "remove_bg", image: output });
  }
  return Response.json({ bytes: await outputBytes(last) });
}

/** The size of what a model made; a streamed image (the local upscaler's rows) is written out to be counted. */
async function outputBytes(output: ModelOutput): Promise<number> {
  if (output.kind === "image") return output.bytes.length;
  if (output.kind === "svg") return output.markup.length;
  let bytes = 0;
  for await (const piece of output.pieces) bytes += piece.length;
  return bytes;
}

/** What the billed path adds nothing to: the tool's own validation, preparation and work. */
async function unbilled(name: string, request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  const tool = TOOLS.find((candidate) => candidate.name === name);
  if (!tool) return Response.json({ error: `no tool ${name}` }, { status: 404 });
  const toolCtx = { env, family: "v1", requestId: "bench", source: "rest", baseUrl: new URL(request.url).origin, startedAt: Date.now(), waitUntil: (work: Promise<unknown>) => ctx.waitUntil(work) } as unknown as ToolContext;
  const prepared = await tool.prepare(tool.input("v1").parse(await request.json()), toolCtx);
  const output = await workBudgetOf(tool, prepared).run(() => tool.run(prepared, toolCtx));
  return Response.json({ success: true, message: output.message, result: output.result });
}

export default {
  queue: app.queue,
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/__bench/noop") return new Response("ok");
    if (url.pathname === "/__bench/prepare" && request.method === "POST") return prepare(request, env);
    const stage = /^\/__bench\/provider\/([\w-]+)$/.exec(url.pathname);
    if (stage && request.method === "POST") return providerStage(stage[1]!, env);
    const bare = /^\/__bench\/unbilled\/(\w+)$/.exec(url.pathname);
    if (bare && request.method === "POST") return unbilled(bare[1]!, request, env, ctx);
    return app.fetch(request, env, ctx);
  },
};
