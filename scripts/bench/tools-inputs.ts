// The requests `npm run bench:tools` sends: one per model tool, on the built-in local models,
// with input pictures made here (a subject on a plain background, so the cut-out has work to do).
import sharp from "sharp";

export interface ToolCase {
  tool: string;
  path: string;
  args: Record<string, unknown>;
}

async function discPng(side: number): Promise<string> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}">
    <rect width="100%" height="100%" fill="#d7e1eb"/><circle cx="${side / 2}" cy="${side / 2}" r="${side * 0.3}" fill="#aa141e"/></svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  return `data:image/png;base64,${png.toString("base64")}`;
}

export async function toolCases(): Promise<ToolCase[]> {
  const picture512 = await discPng(512);
  const picture256 = await discPng(256);
  const prompt = "a red circle on a pale blue background, centered, flat";
  return [
    { tool: "generate_image", path: "/v1/generate", args: { prompt, seed: 1 } },
    { tool: "generate_transparent_image", path: "/v1/generate-transparent", args: { prompt, seed: 1 } },
    { tool: "edit_image", path: "/v1/edit", args: { image: picture512, prompt: "grayscale and sharpen" } },
    { tool: "remove_background", path: "/v1/remove-background", args: { image: picture512, model: "local-cutout-v1" } },
    { tool: "upscale_image", path: "/v1/upscale", args: { image: picture256, scaleFactor: "4x", model: "local-lanczos-v1" } },
    { tool: "text_to_svg", path: "/v1/text-to-svg", args: { prompt: "a blue rocket", model: "local-svg-v1", seed: 1 } },
  ];
}
