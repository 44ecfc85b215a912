import { knownReplicateModel } from "./replicate-models";
import type { ProviderTask } from "./types";
import type { ImageReference } from "./input-links";

// The `input` object of a Replicate prediction. Every Replicate model has its own input schema:
// the models the catalogue seeds are called with their documented names (replicate-models.ts);
// any other id an operator adds gets this generic input, which follows the common conventions:
// - generate: `prompt`, `aspect_ratio` ("16:9"), `seed`, `output_format: "png"`; references as
//   `image_prompt` (the first, FLUX 1.1 pro's name) and `image_input` (all of them,
//   the array most multi-image models take). Cog ignores inputs a model does not declare.
// - edit: `prompt`, `input_image` (FLUX Kontext's name) and `image` (the usual one), `seed`,
//   `aspect_ratio`.
// - remove_bg: `image` (rembg and most cut-out models).
// - upscale: `image`, `scale` (Real-ESRGAN; 2, 4 or 8), `face_enhance: false`.
// - svg: `prompt` with the requested style folded into it. The `style` parameter of SVG models
//   is a model-specific enum (Recraft: "any", "line_art", ...) that our free-text style (default
//   "icon") would fail, so it is described in words instead.
// Images travel as `ref` gives them (input-links.ts): data URIs, Replicate's documented way to
// pass files inline, up to 1 MB; above, signed links to our own copy, as Replicate recommends.

export function predictionInput(task: ProviderTask, upstreamModel: string, ref: ImageReference): Record<string, unknown> {
  const known = knownReplicateModel(upstreamModel);
  if (known) return known.input(task, ref);
  switch (task.kind) {
    case "generate": {
      const input: Record<string, unknown> = {
        prompt: task.prompt,
        aspect_ratio: task.aspectRatio.label,
        seed: task.seed,
        output_format: "png",
      };
      if (task.references.length > 0) {
        const uris = task.references.map(ref);
        input.image_prompt = uris[0];
        input.image_input = uris;
      }
      return input;
    }
    case "edit": {
      const uri = ref(task.image);
      return { prompt: task.prompt, input_image: uri, image: uri, aspect_ratio: task.aspectRatio.label, seed: task.seed, output_format: "png" };
    }
    case "remove_bg":
      return { image: ref(task.image) };
    case "upscale":
      return { image: ref(task.image), scale: task.factor, face_enhance: false };
    case "svg": {
      const style = task.style.trim();
      return { prompt: style ? `${task.prompt}, in ${style} style` : task.prompt };
    }
  }
}
