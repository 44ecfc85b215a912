import type { ModelProvider } from "../models/catalog";
import { localProvider } from "./local";
import { openaiProvider } from "./openai";
import { replicateProvider } from "./replicate";
import type { ImageProvider } from "./types";
import { workersAiProvider } from "./workers-ai";

// The adapters, one per `provider` value of a model row.
const PROVIDERS: Record<ModelProvider, ImageProvider> = {
  local: localProvider,
  "workers-ai": workersAiProvider,
  openai: openaiProvider,
  replicate: replicateProvider,
};

export function providerOf(name: ModelProvider): ImageProvider {
  return PROVIDERS[name];
}
