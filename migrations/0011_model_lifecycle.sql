-- Model lifecycle. A row may carry `retires_at` (a UTC date, YYYY-MM-DD) and `replaced_by` (the
-- model id that serves in its place). From that date the row is not live: it leaves the model
-- lists, and a call that names it is served by its replacement (src/models/resolve.ts).
ALTER TABLE models ADD COLUMN retires_at TEXT CHECK (retires_at IS NULL OR retires_at GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]');
ALTER TABLE models ADD COLUMN replaced_by TEXT;

-- OpenAI's image models as its deprecations page has them in November 2026: GPT Image 2 is the
-- current one; `gpt-image-1` was shut down on 2026-10-23 and `gpt-image-1.5` shuts down on
-- 2026-12-01, both replaced by it. GPT Image 2 refuses `background: transparent` (so transparent
-- output through it is the render followed by the cut-out stage, src/providers/openai.ts).
INSERT INTO models (model_id, name, description, provider, upstream_model, task, cost_per_req, priority, outputs_supported) VALUES
  ('gpt-image-2', 'GPT Image 2 (OpenAI Images API)',
   'OpenAI GPT Image 2 through the Images API at OPENAI_BASE_URL: generations, up to 16 reference images, and edits by instruction. Transparent output goes through the cut-out stage.',
   'openai', 'gpt-image-2', 'image', 20, 70, '["image"]');
INSERT INTO models (model_id, name, description, provider, upstream_model, task, cost_per_req, priority, outputs_supported, retires_at, replaced_by) VALUES
  ('gpt-image-1.5', 'GPT Image 1.5 (OpenAI Images API)',
   'OpenAI GPT Image 1.5 through the Images API: generations and edits. OpenAI shuts it down on 2026-12-01; GPT Image 2 serves it from then on.',
   'openai', 'gpt-image-1.5', 'image', 20, 69, '["image"]', '2026-12-01', 'gpt-image-2');
UPDATE models SET
  name = 'GPT Image 1 (retired 2026-10-23)',
  description = 'OpenAI shut GPT Image 1 down on 2026-10-23; a call that names it is served by GPT Image 2.',
  priority = 68, retires_at = '2026-10-23', replaced_by = 'gpt-image-2'
WHERE model_id = 'gpt-image-1';
