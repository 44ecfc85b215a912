-- Replicate runs a community model only by version (POST /v1/predictions { version }); the
-- version-less /v1/models/{owner}/{name}/predictions path is documented for official models and
-- answers 404 for the others. rembg and Real-ESRGAN are community models: pinned here to the
-- versions their pages list (replicate.com/cjwbw/rembg/versions,
-- replicate.com/nightmareai/real-esrgan/versions; checked 2026-11-27). A new version is a new
-- migration, never a silent change of what a row runs.
UPDATE models SET upstream_model = 'cjwbw/rembg:fb8af171cfa1616ddcf1242c093f9c46bcada5ad4cf6f2fbe8b81b330ec5c003'
WHERE model_id = 'rembg';
UPDATE models SET upstream_model = 'nightmareai/real-esrgan:f121d640bd286e1fdc67f9799164c1d5be36ff74576ee11c803ae5b665dd46aa'
WHERE model_id = 'real-esrgan';
