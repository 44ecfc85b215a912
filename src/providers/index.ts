// Model providers: the adapters behind one interface (types.ts) and the one way to call them.
export { providerOf } from "./registry";
export { runModel, checkTask, memoryForTask, seedUsed, type ModelOutput, type ImageOutput, type StreamedImageOutput } from "./run";
export type * from "./types";
