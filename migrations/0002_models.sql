-- Selectable models. `task` says which tool a row serves: `image` rows are what `model` may name
-- on generate/edit and what /v1/models lists; the others back the dedicated tools.
-- `isLive` is computed at read time: enabled AND the row's provider is configured.
CREATE TABLE models (
  model_id          TEXT PRIMARY KEY,
  name              TEXT NOT NULL,
  description       TEXT NOT NULL,
  provider          TEXT NOT NULL CHECK (provider IN ('local', 'workers-ai', 'openai', 'replicate')),
  upstream_model    TEXT NOT NULL,
  task              TEXT NOT NULL CHECK (task IN ('image', 'remove_bg', 'upscale', 'svg')),
  cost_per_req      INTEGER CHECK (cost_per_req IS NULL OR cost_per_req >= 0),
  priority          INTEGER NOT NULL DEFAULT 0,
  outputs_supported TEXT NOT NULL DEFAULT '["image"]',
  enabled           INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1))
);
CREATE INDEX models_by_task_priority ON models (task, priority DESC);

INSERT INTO models (model_id, name, description, provider, upstream_model, task, cost_per_req, priority, outputs_supported) VALUES
  ('local-draw-v1', 'Local procedural renderer (offline, not a neural model)',
   'Built-in deterministic renderer: draws shapes, colours and composition picked from the prompt words and the seed. Runs offline inside the worker; it does not understand images the way a diffusion model does.',
   'local', 'procedural-v1', 'image', 2, 10, '["image"]'),
  ('flux-1-schnell', 'FLUX.1 [schnell] on Workers AI',
   'Black Forest Labs FLUX.1 schnell text-to-image through the Workers AI binding.',
   'workers-ai', '@cf/black-forest-labs/flux-1-schnell', 'image', 10, 80, '["image"]'),
  ('sd-v1-5-img2img', 'Stable Diffusion 1.5 img2img on Workers AI',
   'Runway Stable Diffusion 1.5 image-to-image through the Workers AI binding; used for edits.',
   'workers-ai', '@cf/runwayml/stable-diffusion-v1-5-img2img', 'image', 10, 60, '["image"]'),
  ('gpt-image-1', 'GPT Image 1 (OpenAI-compatible Images API)',
   'Any OpenAI-compatible Images API at OPENAI_BASE_URL: generations and edits.',
   'openai', 'gpt-image-1', 'image', 20, 70, '["image"]'),
  ('flux-1.1-pro', 'FLUX 1.1 [pro] on Replicate',
   'Black Forest Labs FLUX 1.1 pro through Replicate predictions.',
   'replicate', 'black-forest-labs/flux-1.1-pro', 'image', NULL, 50, '["image"]'),
  ('local-cutout-v1', 'Local classical cut-out (offline, not a neural model)',
   'Built-in background removal: estimates a uniform or smoothly varying background from the border and makes it transparent with soft edges.',
   'local', 'cutout-v1', 'remove_bg', 8, 10, '["image"]'),
  ('rembg', 'rembg on Replicate', 'Background removal model on Replicate.',
   'replicate', 'cjwbw/rembg', 'remove_bg', 8, 50, '["image"]'),
  ('local-lanczos-v1', 'Local Lanczos upscaler (offline, not a neural model)',
   'Built-in Lanczos-3 resampling to exactly 2x, 4x or 8x; it adds no detail that was not there.',
   'local', 'lanczos3-v1', 'upscale', 15, 10, '["image"]'),
  ('real-esrgan', 'Real-ESRGAN on Replicate', 'Super-resolution upscaler on Replicate.',
   'replicate', 'nightmareai/real-esrgan', 'upscale', 15, 50, '["image"]'),
  ('local-svg-v1', 'Local SVG composer (offline, not a neural model)',
   'Built-in icon composer: lays out simple shapes and colours chosen from the prompt words.',
   'local', 'svg-composer-v1', 'svg', 5, 10, '["svg"]'),
  ('recraft-v3-svg', 'Recraft V3 SVG on Replicate', 'Vector illustration model on Replicate.',
   'replicate', 'recraft-ai/recraft-v3-svg', 'svg', 5, 50, '["svg"]');
