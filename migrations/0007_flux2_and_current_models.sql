-- 2026's models. On Workers AI, FLUX.2 generates, follows up to 4 reference images and edits by
-- instruction (multipart inputs, src/providers/workers-ai-flux2.ts); [klein] 4B is the fast one
-- and heads the list, [klein] 9B is sharper, [dev] the strongest and slowest (priced per step).
-- Prices in credits follow the upstream's documented unit prices (per 512x512 tile of a ~1 MP
-- output and of each input image): klein 4B ~$0.0012, klein 9B a little more, dev ~$0.04 at 25
-- steps. On Replicate: FLUX.2 [pro] and FLUX Kontext [pro] serve references and instruction
-- edits; Bria RMBG 2.0 becomes the first cut-out model (above rembg); Topaz joins the upscalers
-- below Real-ESRGAN, because Topaz stops at 6x and the default upscaler must serve 8x too.
-- Every older row stays, so a client that names one keeps working.
INSERT INTO models (model_id, name, description, provider, upstream_model, task, cost_per_req, priority, outputs_supported) VALUES
  ('flux-2-klein-4b', 'FLUX.2 [klein] 4B on Workers AI',
   'Black Forest Labs FLUX.2 klein 4B through the Workers AI binding: fast text-to-image, up to 4 reference images, and edits by instruction.',
   'workers-ai', '@cf/black-forest-labs/flux-2-klein-4b', 'image', 6, 100, '["image"]'),
  ('flux-2-klein-9b', 'FLUX.2 [klein] 9B on Workers AI',
   'Black Forest Labs FLUX.2 klein 9B through the Workers AI binding: better quality than 4B at a similar speed; references and edits as 4B.',
   'workers-ai', '@cf/black-forest-labs/flux-2-klein-9b', 'image', 8, 95, '["image"]'),
  ('flux-2-dev', 'FLUX.2 [dev] on Workers AI',
   'Black Forest Labs FLUX.2 dev through the Workers AI binding: the most detailed of the three and the slowest; up to 4 reference images and edits by instruction.',
   'workers-ai', '@cf/black-forest-labs/flux-2-dev', 'image', 25, 85, '["image"]'),
  ('flux-2-pro', 'FLUX.2 [pro] on Replicate',
   'Black Forest Labs FLUX.2 pro through Replicate: generation with up to 8 reference images, and edits by instruction.',
   'replicate', 'black-forest-labs/flux-2-pro', 'image', 20, 55, '["image"]'),
  ('flux-kontext-pro', 'FLUX.1 Kontext [pro] on Replicate',
   'Black Forest Labs FLUX Kontext pro through Replicate: edits one image by instruction (or follows one reference).',
   'replicate', 'black-forest-labs/flux-kontext-pro', 'image', 20, 52, '["image"]'),
  ('bria-remove-background', 'Bria RMBG 2.0 on Replicate',
   'Bria background removal through Replicate: a cut-out with 256 levels of transparency.',
   'replicate', 'bria/remove-background', 'remove_bg', 8, 60, '["image"]'),
  ('topaz-upscale', 'Topaz Image Upscale on Replicate',
   'Topaz Labs upscaler through Replicate, 2x or 4x (8x is served by the other upscalers).',
   'replicate', 'topazlabs/image-upscale', 'upscale', 15, 45, '["image"]');
