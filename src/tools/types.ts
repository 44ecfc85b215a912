import type { z } from "@hono/zod-openapi";
import type { Account } from "../accounts/repository";
import type { WorkBudget } from "../codecs/fuel";
import type { Env } from "../env";
import type { ErrorCode } from "../errors";
import type { UsageSource } from "../usage/log";

// One tool, defined once: its MCP name, its REST paths, its input schema, its
// price, and the work. REST, batch and MCP are thin adapters over these definitions.

/** The two REST path families. They differ in a few accepted values and result shapes. */
export type Family = "v1" | "playground";

export interface ToolContext {
  env: Env;
  family: Family;
  account: Account;
  requestId: string;
  source: UsageSource;
  /** Host for returned file URLs (PUBLIC_BASE_URL or the request's origin). */
  baseUrl: string;
  /** When the request arrived: results report the wall-clock latency from here. */
  startedAt: number;
  /** The Idempotency-Key the request runs under, if any: the ledger releases it if the call is interrupted. */
  idempotency?: { key: string; fingerprint: string };
  /** Keeps the isolate running for work that outlives the answer (cancelling an upstream job). */
  waitUntil: (work: Promise<unknown>) => void;
}

/** What a tool's run produced, before the surface adds the credit fields. */
export interface ToolOutput<Result> {
  message: string;
  result: Result;
  /**
   * Credits to give back although the call succeeded, because a paid stage of it failed
   * (generate-transparent's cut-out). Refunded and logged like a provider failure.
   */
  refundCredits?: number;
}

/** What the usage log records about a call. */
export interface CallSummary {
  model: string;
  prompt: string;
}

export interface ToolDefinition<Input = unknown, Prepared = unknown, Result = Record<string, unknown>> {
  /** The MCP tool name; also the `tool` of batch items and usage-log entries. */
  name: string;
  paths: Record<Family, string>;
  summary: string;
  description: string;
  /**
   * The description agents read over MCP, when `description` says something only REST callers
   * can act on (status codes, paths); at most 1,024 characters, the most model APIs accept.
   */
  mcpDescription?: string;
  /** Request fields the MCP schema leaves out, still accepted: aliases whose MCP name is another field. */
  mcpHides?: string[];
  /** Errors this tool answers besides the ones every billed call can (billing/errors). */
  errors?: ErrorCode[];
  /** The request body schema. Families may accept different values (convert-format). */
  input(family: Family): z.ZodType<Input>;
  /** The `result` object's schema, for the OpenAPI document. */
  result(family: Family): z.ZodType<Result>;
  /**
   * Everything that must hold before credits are taken: loading and checking the input image,
   * choosing the model, the safety screen. A failure here costs nothing.
   */
  prepare(input: Input, ctx: ToolContext): Promise<Prepared>;
  /** Credits for this call; flat per call. */
  price(prepared: Prepared): number;
  summarize(input: Input, prepared?: Prepared): CallSummary;
  /**
   * The budget run() draws on (codecs/fuel.ts): every codec instance the call makes, whatever
   * it makes it for (input made acceptable for a provider, a local model's output, the result
   * hosted or answered), and the call stops with image_too_large, refunded, once it is spent.
   * Sized from the pixels the work reads and writes (WorkBudget.forWork). Absent: the floor
   * alone, for a tool that does no codec work of its own (text_to_svg).
   */
  workBudget?(prepared: Prepared): WorkBudget;
  /** The work itself, after the credits were taken, on workBudget (billing/billed-call.ts). */
  run(prepared: Prepared, ctx: ToolContext): Promise<ToolOutput<Result>>;
  /**
   * Gives back what prepare() holds (the codec tools' memory-gate permit) when the call is
   * refused after prepare and run never starts. run() releases it itself.
   */
  release?(prepared: Prepared): void;
}

/** Erases the type parameters so definitions of different shapes fit one list. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the registry holds tools of different input types
export type AnyTool = ToolDefinition<any, any, any>;

export function defineTool<Input, Prepared, Result>(tool: ToolDefinition<Input, Prepared, Result>): AnyTool {
  return tool;
}
