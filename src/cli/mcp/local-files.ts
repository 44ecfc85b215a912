import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { inlineLocalImages } from "../image-input.ts";
import { artefactOf, saveArtefactInto, stemFor, type Artefact } from "../results.ts";

// What the stdio server adds to the remote tools, because only it runs on the user's machine:
// image arguments that are local file paths are read and sent as data URIs, and results can be
// saved into a directory. Everything else passes through unchanged.

export const LOCAL_PATH_NOTE =
  "Local use: image arguments (image, imageBase64, referenceImages) may also be paths of files on this machine; the local server reads them and sends them as data URIs.";

const IMAGE_ARGUMENTS = ["image", "imageBase64", "referenceImages"];

function takesImages(schema: unknown): boolean {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  if (IMAGE_ARGUMENTS.some((name) => name in properties)) return true;
  // multicall: each request's args is some tool's body, images included.
  return "requests" in properties;
}

/** The remote tool as this server offers it: same name, schema and annotations, a note on paths. */
export function localTool(tool: Tool, saveDir: string | undefined): Tool {
  if (!takesImages(tool.inputSchema) && !saveDir) return tool;
  const notes = [tool.description ?? ""];
  if (takesImages(tool.inputSchema)) notes.push(LOCAL_PATH_NOTE);
  if (saveDir && tool.name !== "get_user_info" && tool.name !== "list_models") notes.push(`Results are also saved into ${saveDir}.`);
  return { ...tool, description: notes.filter(Boolean).join("\n\n") };
}

/** The arguments with local image files inlined; multicall's nested args too. */
export async function localArguments(args: Record<string, unknown> | undefined): Promise<Record<string, unknown> | undefined> {
  if (!args) return args;
  const inlined = await inlineLocalImages(args);
  if (Array.isArray(args.requests)) {
    inlined.requests = await Promise.all(
      args.requests.map(async (item: unknown, index: number) => {
        const entry = item as { args?: unknown } | null;
        if (!entry || typeof entry.args !== "object" || entry.args === null) return item;
        return { ...entry, args: await inlineLocalImages(entry.args as Record<string, unknown>, `requests.${index}.args.`) };
      }),
    );
  }
  return inlined;
}

/** The files a result stands for: one for a single tool, one per successful item for multicall. */
function artefactsOf(tool: string, structured: unknown): { artefact: Artefact; tool: string }[] {
  const single = artefactOf(structured);
  if (single) return [{ artefact: single, tool }];
  const results = (structured as { results?: unknown } | undefined)?.results;
  if (!Array.isArray(results)) return [];
  return results.flatMap((item: unknown, index: number) => {
    const entry = item as { tool?: string; success?: boolean; data?: { result?: unknown }; result?: unknown };
    if (entry?.success === false) return [];
    const artefact = artefactOf(entry?.data?.result ?? entry?.result ?? entry);
    return artefact ? [{ artefact, tool: `${String(index + 1).padStart(2, "0")}-${entry.tool ?? tool}` }] : [];
  });
}

/** Saves what the result produced into `dir` and says where in the text content. */
export async function saveResult(tool: string, result: CallToolResult, dir: string): Promise<CallToolResult> {
  if (result.isError) return result;
  const wanted = artefactsOf(tool, result.structuredContent);
  if (wanted.length === 0) return result;
  let note: string;
  try {
    const paths = await Promise.all(wanted.map(({ artefact, tool: stem }) => saveArtefactInto(artefact, dir, stemFor(artefact, stem))));
    note = paths.map((file) => `Saved to ${file}`).join("\n");
  } catch (error) {
    // The call succeeded and was paid for; a local write failure must not hide its result.
    note = `Could not save the result into ${dir}: ${error instanceof Error ? error.message : String(error)}`;
  }
  const content = [...(result.content ?? [])];
  const firstText = content.findIndex((block) => block.type === "text");
  if (firstText >= 0) {
    const block = content[firstText] as { type: "text"; text: string };
    content[firstText] = { ...block, text: `${block.text}\n${note}` };
  } else content.push({ type: "text", text: note });
  return { ...result, content };
}
