import { knownReplicateModel } from "./replicate-models";
import type { ProviderTask } from "./types";
import { dataUriOf } from "./upstream-output";

// The `input` object of a Replicate prediction. Every Replicate model has its own input schema:
// the models the catalogue seeds are called with their documented names (replicate-models.ts);
// any other id an operator adds gets this generic input, which follows the common conventions:
// - generate: `prompt`, `aspect_ratio` ("16:9"), `seed`, `output_format: "png"`; references as
//   data URIs in `image_prompt` (the first, FLUX 1.1 pro's name) and `image_input` (all of them,
//   the array most multi-image models take). Cog ignores inputs a model does not declare.
// - edit: `prompt`, `input_image` (FLUX Kontext's name) and `image` (the usual one), `seed`,
//   `aspect_ratio`.
// - remove_bg: `image` (rembg and most cut-out models).
// - upscale: `image`, `scale` (Real-ESRGAN; 2, 4 or 8), `face_enhance: false`.
// - svg: `prompt` with the requested style folded into it. The `style` parameter of SVG models
//   is a model-specific enum (Recraft: "any", "line_art", ...) that our free-text style (default
//   "icon") would fail, so it is described in words instead.
// Data URIs are Replicate's documented way to pass files inline; inputs are already limited to
// 20 MB each by the input module.

export function predictionInput(task: ProviderTask, upstreamModel: string): Record<string, unknown> {
  const known = knownReplicateModel(upstreamModel);
  if (known) return known.input(task);
  switch (task.kind) {
    case "generate": {
      const input: Record<string, unknown> = {
        prompt: task.prompt,
        aspect_ratio: task.aspectRatio.label,
        seed: task.seed,
        output_format: "png",
      };
      if (task.references.length > 0) {
        const uris = task.references.map(dataUriOf);
        input.image_prompt = uris[0];
        input.image_input = uris;
      }
      return input;
    }
    case "edit": {
      const uri = dataUriOf(task.image);
      return { prompt: task.prompt, input_image: uri, image: uri, aspect_ratio: task.aspectRatio.label, seed: task.seed, output_format: "png" };
    }
    case "remove_bg":
      return { image: dataUriOf(task.image) };
    case "upscale":
      return { image: dataUriOf(task.image), scale: task.factor, face_enhance: false };
    case "svg": {
      const style = task.style.trim();
      return { prompt: style ? `${task.prompt}, in ${style} style` : task.prompt };
    }
  }
}
