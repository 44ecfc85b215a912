import { fakeClassify, LLAMA_GUARD_CODE, OPENAI_CATEGORY } from "../safety/fake-classifier.ts";
import { isJson, parseJson, sendJson, type FakeExchange } from "./http-kit.ts";

// The two moderation APIs the safety screen's second stage speaks, answering from the FAKE
// classifier (test/safety/fake-classifier.ts), so a test can predict every verdict:
// - Llama Guard 3 on Workers AI (@cf/meta/llama-guard-3-8b): `messages` ({ role: user|assistant,
//   content }, roles alternating), optional max_tokens, temperature, response_format
//   { type: "json_object" }. With JSON it answers result.response = { safe, categories: ["S1"] },
//   without it the model's text, "safe" or "unsafe\nS1".
// - OpenAI's POST /v1/moderations { model, input }: { id, model, results: [{ flagged,
//   categories: { name: boolean }, category_scores }] }. Model "fake/http-500" fails.

const OPENAI_NAMES = [...new Set(Object.values(OPENAI_CATEGORY)), "harassment", "harassment/threatening", "self-harm/intent", "self-harm/instructions", "violence/graphic", "illicit/violent", "hate/threatening"];

type Failure = (status: number, code: number, message: string) => void;

/** Workers AI's answer for a Llama Guard model; `inputs` is the parsed JSON body. */
export function serveLlamaGuard(x: FakeExchange, inputs: Record<string, unknown>, fail: Failure): void {
  // Its fields were held to Llama Guard 3's published schema by the caller (fake-workers-ai.ts).
  const messages = inputs.messages;
  const wellFormed = Array.isArray(messages) && messages.length > 0 && messages.every((message, index) =>
    typeof message?.content === "string" && message.role === (index % 2 === 0 ? "user" : "assistant"));
  if (!wellFormed) return fail(400, 5006, "Error: messages must be { role, content } objects alternating user and assistant, starting with user");
  const format = inputs.response_format as { type?: unknown } | undefined;
  if (format !== undefined && format?.type !== "json_object") return fail(400, 5006, "Error: response_format.type must be json_object");
  const last = [...(messages as { role: string; content: string }[])].reverse().find((message) => message.role === "user")!;
  const category = fakeClassify(last.content);
  const categories = category ? [LLAMA_GUARD_CODE[category]] : [];
  const response = format ? { safe: category === null, categories } : category ? `unsafe\n${categories.join(",")}` : "safe";
  sendJson(x.res, 200, { result: { response, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }, success: true, errors: [], messages: [] });
}

/** OpenAI's POST /v1/moderations. */
export function serveModerations(x: FakeExchange): void {
  const body = isJson(x.req) ? (parseJson(x.body) as { model?: unknown; input?: unknown } | undefined) : undefined;
  if (typeof body?.input !== "string") return sendJson(x.res, 400, { error: { message: "input must be a string", type: "invalid_request_error", param: "input", code: null } });
  if (body.model === "fake/http-500") return sendJson(x.res, 500, { error: { message: "The server had an error while processing your request.", type: "server_error", param: null, code: null } });
  const category = fakeClassify(body.input);
  const flaggedName = category ? OPENAI_CATEGORY[category] : null;
  const categories = Object.fromEntries(OPENAI_NAMES.map((name) => [name, name === flaggedName]));
  const scores = Object.fromEntries(OPENAI_NAMES.map((name) => [name, name === flaggedName ? 0.97 : 0.001]));
  sendJson(x.res, 200, { id: "modr-fake", model: String(body.model ?? "omni-moderation-latest"), results: [{ flagged: category !== null, categories, category_scores: scores }] });
}
